extension SecretScrubber {
    /// The headers whose whole value is a secret (those `headers(_:secrets:)` shows as `***`), so a
    /// value a caller set for one (`get … Authorization:…`) is masked wherever it is echoed too.
    public static func isSecretHeader(_ name: String) -> Bool {
        ["token", "authorization", "proxy-authorization", "cookie", "set-cookie"].contains(name.lowercased())
    }
}
