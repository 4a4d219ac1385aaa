/**
 * What counts as saying something in a user turn. A user message with only blank text cannot be sent as it
 * is (Anthropic refuses a text block of whitespace; the other builders drop an empty message), and a request
 * that loses its last user turn ends with the assistant's reply: a prefill, which the model continues instead
 * of answering. The Agent refuses such a prompt, and every built-in request builder refuses such a last turn.
 */
import type { UserContent } from "./messages.js";

/** Whether user content says anything: some text beyond whitespace, or an image. */
export function hasUserContent(content: string | readonly UserContent[]): boolean {
	if (typeof content === "string") return content.trim() !== "";
	return content.some((block) => block.type !== "text" || block.text.trim() !== "");
}
