/**
 * The AI SDK chat page: `ai`'s own framework-free client pieces — `AbstractChat` over a small
 * DOM-rendering `ChatState`, and `DefaultChatTransport` posting to `/api/chat` — with no UI framework.
 * Send posts the prompt; the assistant message's text parts are rendered as each chunk of the UI
 * message stream arrives; Stop calls `chat.stop()`, which aborts the fetch.
 */
import { AbstractChat, DefaultChatTransport, type ChatState, type ChatStatus, type UIMessage } from "ai"

const element = <T extends HTMLElement>(id: string): T => {
  const found = document.getElementById(id)
  if (found === null) throw new Error(`#${id} is missing from the page`)
  return found as T
}

/** A `ChatState` that calls `changed` after every change (what a framework's reactive store would do). */
class DomChatState implements ChatState<UIMessage> {
  #status: ChatStatus = "ready"
  #error: Error | undefined = undefined
  #messages: Array<UIMessage> = []
  constructor(private readonly changed: () => void) {}
  get status(): ChatStatus {
    return this.#status
  }
  set status(status: ChatStatus) {
    this.#status = status
    this.changed()
  }
  get error(): Error | undefined {
    return this.#error
  }
  set error(error: Error | undefined) {
    this.#error = error
    this.changed()
  }
  get messages(): Array<UIMessage> {
    return this.#messages
  }
  set messages(messages: Array<UIMessage>) {
    this.#messages = [...messages]
    this.changed()
  }
  pushMessage = (message: UIMessage): void => {
    this.#messages = [...this.#messages, message]
    this.changed()
  }
  popMessage = (): void => {
    this.#messages = this.#messages.slice(0, -1)
    this.changed()
  }
  replaceMessage = (index: number, message: UIMessage): void => {
    this.#messages = this.#messages.map((m, i) => (i === index ? message : m))
    this.changed()
  }
  snapshot = <T>(thing: T): T => structuredClone(thing)
}

/** `AbstractChat` is abstract only so a framework can hand it its own state; this page's is the DOM. */
class PageChat extends AbstractChat<UIMessage> {
  constructor(state: DomChatState, onFinish: (aborted: boolean) => void) {
    super({
      state,
      transport: new DefaultChatTransport({
        api: "/api/chat",
        body: () => ({ model: element<HTMLSelectElement>("model").value })
      }),
      onFinish: ({ isAbort }) => onFinish(isAbort)
    })
  }
}

const root = element("chat")
const output = element("reply")
const send = element<HTMLButtonElement>("send")
const stop = element<HTMLButtonElement>("stop")
/** Every length the rendered reply had, in order (the test reads it to see the text grow). */
const lengths: Array<number> = []
Object.assign(window, { chatLengths: lengths })

const assistantText = (messages: ReadonlyArray<UIMessage>): string => {
  const last = messages.at(-1)
  if (last?.role !== "assistant") return ""
  return last.parts.map((part) => (part.type === "text" ? part.text : "")).join("")
}

// Set once the chat exists: the state may report a change while `AbstractChat` is being constructed.
let current: PageChat | undefined
const render = (): void => {
  if (current === undefined) return
  const text = assistantText(current.messages)
  if (output.textContent !== text) {
    output.textContent = text
    lengths.push(text.length)
  }
  const busy = current.status === "submitted" || current.status === "streaming"
  if (busy || current.status === "error") root.dataset["state"] = current.status
  send.disabled = busy
  stop.disabled = !busy
}
const chat = new PageChat(new DomChatState(render), (aborted) => {
  root.dataset["state"] = aborted ? "stopped" : "done"
})
current = chat

send.addEventListener("click", () => {
  lengths.length = 0
  root.dataset["state"] = "submitted"
  void chat.sendMessage({ text: element<HTMLTextAreaElement>("prompt").value })
})
stop.addEventListener("click", () => void chat.stop())
root.dataset["ready"] = "true"
