import Foundation

/// The command Task in flight, so Ctrl-C can cancel it. If the command ignores cancellation the
/// runner stops waiting after a grace period and returns to the prompt anyway.
final class RunningCommand: @unchecked Sendable {
    private let lock = NSLock()
    private var cancelAction: (() -> Void)?
    static let grace: TimeInterval = 0.2

    func run(_ body: @escaping @Sendable () async throws -> Int32) async -> Result<Int32, any Error> {
        let gate = Gate()
        SignalRouter.commandActive.store(true, ordering: .sequentiallyConsistent)
        defer {
            SignalRouter.commandActive.store(false, ordering: .sequentiallyConsistent)
            lock.withLock { cancelAction = nil }
        }
        return await withCheckedContinuation { (continuation: CheckedContinuation<Result<Int32, any Error>, Never>) in
            gate.set(continuation)
            let task = Task {
                do { gate.resume(.success(try await body())) } catch { gate.resume(.failure(error)) }
            }
            lock.withLock {
                cancelAction = {
                    task.cancel()
                    DispatchQueue.global().asyncAfter(deadline: .now() + RunningCommand.grace) {
                        gate.resume(.failure(CancellationError()))
                    }
                }
            }
        }
    }

    func cancel() {
        let action = lock.withLock { cancelAction }
        action?()
    }

    /// Resumes the continuation once, whoever comes first (the command or the grace timer).
    private final class Gate: @unchecked Sendable {
        private let lock = NSLock()
        private var continuation: CheckedContinuation<Result<Int32, any Error>, Never>?
        func set(_ c: CheckedContinuation<Result<Int32, any Error>, Never>) { lock.withLock { continuation = c } }
        func resume(_ value: Result<Int32, any Error>) {
            let c: CheckedContinuation<Result<Int32, any Error>, Never>? = lock.withLock {
                defer { continuation = nil }
                return continuation
            }
            c?.resume(returning: value)
        }
    }
}
