/**
 * A request never silently becomes a prefill. Every built-in request builder leaves out what its API refuses
 * (blank text blocks, empty messages), and a user message with nothing in it would vanish with them; as the
 * last message, that leaves the assistant's reply last and the model continues it instead of answering. So
 * the builders refuse a blank last user message before anything is sent. Earlier blank user messages are
 * still left out: the turns around them keep their meaning.
 */
import type { Message } from "../../core/messages.js";
import { hasUserContent } from "../../core/user-content.js";
import { ProviderError } from "./errors.js";

/**
 * Throws an `invalid_request` `ProviderError` (not retried) when the last of `messages` is a user message with
 * no content: only blank text and no image.
 */
export function checkLastUserTurn(messages: readonly Message[]): void {
	const last = messages[messages.length - 1];
	if (last?.role !== "user" || hasUserContent(last.content)) return;
	throw new ProviderError(
		"invalid_request",
		"the last message is a user message with no content (blank text and no image): not sent, because without it the request would end with the assistant's reply, which the model would continue instead of answering; give the user message some text or an image",
		{ retryable: false },
	);
}
