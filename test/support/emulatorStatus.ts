// The HTTP status the emulator answers a JSON POST with (the body read and dropped): what the
// client/emulator agreement tests compare with the client's builders.
import type { Emulator } from "../../src/emulator/index.js"

export const postStatus = async (emu: Emulator, path: string, body: unknown): Promise<number> => {
  const res = await fetch(`${emu.url}${path}`, {
    method: "POST",
    headers: { authorization: `Bearer ${emu.apiKey}`, "content-type": "application/json" },
    body: JSON.stringify(body)
  })
  await res.arrayBuffer()
  return res.status
}
