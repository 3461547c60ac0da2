import NIOCore

/// A manager's network event loop as a `TaskExecutor` (``Manager/taskExecutor``): code that
/// prefers it runs on the thread that reads and writes the manager's WebSocket, so an `emit`
/// writes without crossing threads and an awaited acknowledgement resumes its caller on the
/// thread that received it. Jobs run in order, one at a time, with the connection's I/O.
final class EventLoopTaskExecutor: TaskExecutor {
    let loop: any EventLoop

    init(_ loop: any EventLoop) {
        self.loop = loop
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        loop.execute { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
    }
}
