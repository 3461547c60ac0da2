import Dispatch

/// Holds a serial executor (a handler queue) until the returned function is called: what is
/// queued there meanwhile waits behind the held work, as behind a slow handler on a busy machine.
/// `enqueue` puts work on the executor (for a manager: `manager.runOnHandlerExecutor`).
public func holdExecutor(_ enqueue: (@escaping @Sendable () -> Void) -> Void) async -> @Sendable () -> Void {
    let held = DispatchSemaphore(value: 0)
    let holding = Gate()
    enqueue {
        holding.open()
        held.wait()
    }
    await holding.wait()
    return { held.signal() }
}
