/// Runs a ``DriverConnection``'s offline queue: the oldest command first, one at a time, while
/// connected. A send or request the driver refuses (its transport dropped under the flush) goes
/// back to the head of the queue, and the flush ends: the next connection runs it again.
struct CommandFlush: Sendable {
    let connection: DriverConnection

    func run() async {
        while true {
            switch connection.transition({ $0.nextFlushStep() }) {
            case .done:
                return
            case .send(let id, let event, let payload, let waiter):
                do {
                    try await connection.driver.send(event, payload)
                    waiter.resume()
                } catch DriverError.notConnected {
                    // The transport dropped under the flush: first in line for the next connection
                    // (started now when that connection is up already).
                    switch connection.transition({ $0.sendRefused(id, event, payload, waiter: waiter) }) {
                    case .requeued(let flush): if flush { connection.startFlush() }
                    case .released(let waiter): waiter.resume(throwing: ConnectionError.released)
                    }
                    return
                } catch {
                    waiter.resume(throwing: ConnectionError(driverFailure: error))
                }
            case .request(let request):
                let goOn = await withCheckedContinuation { (finished: CheckedContinuation<Bool, Never>) in
                    connection.startDriverRequest(request) { finished.resume(returning: $0) }
                }
                // Refused, it went back to the queue: the flush ends, as after a refused send.
                if !goOn { return }
            case .expired(let id, let error):
                connection.replies.settle(id, with: .failure(error))
            }
        }
    }
}
