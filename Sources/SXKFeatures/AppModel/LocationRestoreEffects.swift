import SXKSession

extension LocationStateStore.RestoreOutcome {
    /// What the 2-hour rule does to storage and why, in the words `home` and `boot` both print.
    func effects(scope: String) -> (stores: [String], note: String) {
        switch self {
        case .stopped:
            return ([], "not online: countdown stopped, nothing changes")
        case .clearedNoReport:
            return (["\(scope)_\(StoreKey.onlineStatus) removed"], "online without a last report: the online status is dropped")
        case .clearedExpired(let elapsed):
            return (["\(scope)_\(StoreKey.onlineStatus) removed", "\(scope)_\(StoreKey.lastLocationReportTime) removed"],
                    "last report \(HomeFeature.duration(elapsed)) ago is past the 2-hour limit: online status dropped")
        case .resumed(let remaining):
            return ([], "online: countdown resumes with \(HomeFeature.duration(remaining)) left of the 2-hour limit")
        }
    }
}
