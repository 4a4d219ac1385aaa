import type { ToolCall, ToolResultMessage } from "../core/messages.js";
import type { PlaceholderDetails, PlaceholderReason } from "./types.js";

/**
 * Synthetic results for tool calls that did not (fully) run (rule A3, S2, T10, T11, X1). Texts are written
 * for both the model and a person reading the transcript; none of them may read like the tool itself failed.
 * `started` says the tool was executing when it was cut short (abort, deadline, steer); otherwise the call
 * never started and the text says it was not executed.
 */
export function placeholderText(
	reason: PlaceholderReason,
	cause?: string,
	requiredTool?: string,
	started = false,
): string {
	switch (reason) {
		case "aborted":
			return started
				? `Tool execution was aborted: ${cause ?? "Request was aborted"}. The tool did not complete.`
				: `Not executed: the run was aborted before this tool call started (${cause ?? "Request was aborted"}).`;
		case "deadline":
			return started
				? "Tool execution was aborted: deadline exceeded. The tool did not run to completion."
				: "Not executed: deadline exceeded before this tool call started.";
		case "error":
			return `Not executed because the provider stream failed before the tool could run: ${cause ?? "unknown error"}`;
		case "length":
			return (
				"Not executed: the reply hit the output token limit, so this call's arguments may be truncated. " +
				"Do not re-send the same payload; split the work into several smaller tool calls."
			);
		case "interrupted":
			if (started)
				return (
					"Interrupted by a new message from the user while this tool was running: it was stopped before it " +
					"finished, and its work may be partly done. Read the new message first; retry this call afterwards " +
					"if it is still needed."
				);
			return (
				"Skipped because the user sent a new message while the tools were running. " +
				"This call was NOT completed. Read the new message first; retry this call afterwards if it is still needed."
			);
		case "denied":
			return (
				`Not executed: approval for this tool call was denied${cause && cause.trim() !== "" ? `: ${cause.trim()}` : "."} ` +
				"Do not retry it unchanged; take the reason into account or ask the user how to proceed."
			);
		case "lost":
			return (
				"Result lost: the session file that held this tool call's result could not be read back, so whether " +
				"the tool ran is not known. Check its effects before repeating it."
			);
		case "soft_requirement":
			return (
				`Not executed: the next step must be a call to the \`${requiredTool ?? "required"}\` tool. ` +
				`Call \`${requiredTool ?? "required"}\` first; other tools can follow afterwards.`
			);
	}
}

/** A placeholder tool result message that pairs `call` (rule T13). */
export function placeholderResult(
	call: Pick<ToolCall, "id" | "name">,
	reason: PlaceholderReason,
	timestamp: number,
	options: { cause?: string; requiredTool?: string; started?: boolean } = {},
): ToolResultMessage<PlaceholderDetails> {
	const details: PlaceholderDetails = {
		synthetic: true,
		reason,
		executed: reason === "lost" ? "unknown" : false,
	};
	if (options.started) details.started = true;
	return {
		role: "toolResult",
		toolCallId: call.id,
		toolName: call.name,
		content: [
			{ type: "text", text: placeholderText(reason, options.cause, options.requiredTool, options.started) },
		],
		details,
		isError: true,
		timestamp,
	};
}
