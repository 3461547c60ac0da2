package import NIOCore

/// A NIO event loop as a `TaskExecutor`: code that prefers it runs on the thread that reads and
/// writes the connections of that loop, so a write needs no hop to another thread and a reply
/// resumes its waiter on the thread that received it. Jobs run in order, one at a time, between
/// the loop's I/O. The client's `Manager.taskExecutor` and the server's per-connection tasks
/// (`handlersOnEventLoop`) use it.
package final class EventLoopTaskExecutor: TaskExecutor {
    package let loop: any EventLoop

    package init(_ loop: any EventLoop) {
        self.loop = loop
    }

    package func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        loop.execute { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
    }
}
