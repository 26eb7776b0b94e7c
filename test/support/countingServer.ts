// A node:http server on loopback that counts the connections made to it and those still open; the
// servers a test file started are closed after each test (`closeCountingServers` in its afterEach).
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http"
import type { AddressInfo } from "node:net"

const servers: Array<Server> = []

/** Closes every server `countingServer` started. */
export const closeCountingServers = (): Promise<unknown> =>
  Promise.all(servers.splice(0).map((s) => new Promise((r) => s.close(r))))

/** Starts a server with `handler`: its URL, the connections made so far and those still open. */
export const countingServer = async (handler: (req: IncomingMessage, res: ServerResponse) => void) => {
  let connections = 0
  let open = 0
  const server = createServer(handler)
  server.on("connection", (socket) => {
    connections++
    open++
    socket.on("close", () => open--)
  })
  servers.push(server)
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r))
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    connections: () => connections,
    open: () => open
  }
}
