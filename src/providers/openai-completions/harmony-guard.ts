import type { AssistantMessage, ToolCall } from "../../core/messages.js";
import type { Model, StreamOptions } from "../../core/model.js";
import { parseJsonText } from "../../core/partial-json.js";
import type { ReplyGuard, ReplyGuardResolver, ReplyVerdict } from "../../protocol/reply-guard.js";

/**
 * Rule X4: some OpenAI reasoning models (gpt-oss served behind Chat Completions, notably) occasionally leak
 * their internal "Harmony" channel protocol into visible output. Models opt in with
 * `compat: { harmonyLeakGuard: true }`. Detection is pure; `harmonyLeakGuard` turns it into a reply guard
 * (discard and retry, recover, or fail) that the loop applies through its generic `replyGuard` hook.
 */

/** Harmony special tokens, plus the recipient syntax that introduces a tool call inside the protocol. */
const MARKERS = [
	"<|channel|>",
	"<|message|>",
	"<|call|>",
	"<|start|>",
	"<|end|>",
	"<|return|>",
	"<|constrain|>",
];
const RECIPIENT = /(^|\s)to=functions\.[A-Za-z0-9_.-]+/;

/** At most this many discarded replies are retried before the run fails (rule X4). */
export const MAX_HARMONY_RETRIES = 2;

/** Where a leak was found. */
export type HarmonyLeakLocation = "text" | "thinking" | "toolName" | "toolArguments";

/** What the guard did about a leak, reported through `onLeak`. */
export type HarmonyLeakAction = "retry" | "recover" | "fail";

/** One occurrence, as reported to the host. */
export interface HarmonyLeakReport {
	/** Where in the reply the leak was found. */
	location: HarmonyLeakLocation;
	/** The first leaked marker found, such as `<|channel|>` or `to=functions.x`. */
	marker: string;
	/** What the guard did about it (rule X4). */
	action: HarmonyLeakAction;
	/** 0 for the first reply of the turn, 1 for the first retry, … */
	attempt: number;
	/** The id of the tool call that leaked, for a leak in a tool name or arguments. */
	toolCallId?: string;
}

/** The guard's verdict on one reply. */
export type HarmonyVerdict =
	| { type: "clean" }
	/** Tool calls whose arguments were followed by leaked protocol, truncated back to the clean JSON. */
	| { type: "recovered"; message: AssistantMessage; leaks: Omit<HarmonyLeakReport, "action" | "attempt">[] }
	| { type: "leaked"; leak: Omit<HarmonyLeakReport, "action" | "attempt"> };

/** True when the model asks for the guard. */
export function guardsHarmony(compat: Record<string, unknown> | undefined): boolean {
	return compat?.harmonyLeakGuard === true;
}

/** The first Harmony marker in `text`, with its index. */
export function findHarmonyMarker(text: string): { index: number; marker: string } | undefined {
	let found: { index: number; marker: string } | undefined;
	for (const marker of MARKERS) {
		const index = text.indexOf(marker);
		if (index >= 0 && (!found || index < found.index)) found = { index, marker };
	}
	const recipient = RECIPIENT.exec(text);
	if (recipient) {
		const index = recipient.index + (recipient[1]?.length ?? 0);
		if (!found || index < found.index) found = { index, marker: recipient[0].trim() };
	}
	return found;
}

/**
 * Inspect a reply. Markers inside a tool call's JSON string values are data (a tool may legitimately write a
 * document about the protocol), so parsed arguments are never scanned; only text, thinking, tool names and
 * argument text that failed to parse are. When a valid JSON object ends before the leaked protocol starts,
 * the call is recovered by truncating the leak.
 */
export function inspectHarmony(message: AssistantMessage): HarmonyVerdict {
	const leaks: Omit<HarmonyLeakReport, "action" | "attempt">[] = [];
	let content = message.content;
	for (let i = 0; i < message.content.length; i++) {
		const block = message.content[i]!;
		if (block.type === "text" || block.type === "thinking") {
			const found = findHarmonyMarker(block.type === "text" ? block.text : block.thinking);
			if (found) return { type: "leaked", leak: { location: block.type, marker: found.marker } };
		} else if (block.type === "toolCall") {
			const nameLeak =
				findHarmonyMarker(block.name) ?? (block.name.includes("<|") ? { index: 0, marker: "<|" } : undefined);
			if (nameLeak)
				return {
					type: "leaked",
					leak: { location: "toolName", marker: nameLeak.marker, toolCallId: block.id },
				};
			if (block.argumentsText === undefined) continue;
			const found = findHarmonyMarker(block.argumentsText);
			if (!found) continue;
			const recovered = recoverArguments(block, found.index);
			const leak = { location: "toolArguments" as const, marker: found.marker, toolCallId: block.id };
			if (!recovered) return { type: "leaked", leak };
			if (content === message.content) content = message.content.slice();
			content[i] = recovered;
			leaks.push(leak);
		}
	}
	return leaks.length === 0
		? { type: "clean" }
		: { type: "recovered", message: { ...message, content }, leaks };
}

function recoverArguments(call: ToolCall, leakIndex: number): ToolCall | undefined {
	const clean = (call.argumentsText ?? "").slice(0, leakIndex).trimEnd();
	const parsed = parseJsonText(clean);
	if (!parsed.ok || typeof parsed.value !== "object" || parsed.value === null || Array.isArray(parsed.value))
		return undefined;
	const { argumentsError: _error, argumentsText: _text, ...rest } = call;
	return { ...rest, arguments: parsed.value as Record<string, unknown> };
}

/** The reply as committed after a leak: content dropped so the leaked text never reaches the transcript. */
export function discardedReply(
	message: AssistantMessage,
	leak: { location: string; marker: string },
): AssistantMessage {
	return {
		...message,
		content: [],
		stopReason: "error",
		errorMessage: `Discarded a reply that leaked the model's internal channel protocol into its ${leak.location} (the Harmony guard's onLeak hook names the marker).`,
		errorKind: "malformed_response",
	};
}

/** rule X4: nudge the temperature on retries when the host set one. */
export function nudgedTemperature(temperature: unknown, attempt: number): number | undefined {
	if (typeof temperature !== "number") return undefined;
	return Math.min(temperature + 0.2 * attempt, 1.5);
}

/** Options of `harmonyLeakGuard`. */
export interface HarmonyLeakGuardOptions {
	/** Told of every leak and the action taken (rule X4). */
	onLeak?: (report: HarmonyLeakReport) => void;
}

/**
 * Rule X4 as a reply guard: for models flagged `compat: { harmonyLeakGuard: true }` (others get no guard), a
 * leaked reply is discarded and the turn retried up to `MAX_HARMONY_RETRIES` times with a nudged temperature;
 * a tool call whose valid JSON is followed by the leak is recovered; then the run fails with a clear error.
 * Runs get it by default (from `agentLoop` and the `Agent`); pass it as `replyGuard` to hear of leaks.
 */
export function harmonyLeakGuard(options: HarmonyLeakGuardOptions = {}): ReplyGuardResolver {
	const guard = harmonyGuard(options.onLeak);
	return (model: Model) => (guardsHarmony(model.compat) ? guard : undefined);
}

function harmonyGuard(onLeak: ((report: HarmonyLeakReport) => void) | undefined): ReplyGuard {
	return {
		check(message: AssistantMessage, attempt: number): ReplyVerdict {
			const verdict = inspectHarmony(message);
			if (verdict.type === "clean") return { type: "commit", message };
			if (verdict.type === "recovered") {
				for (const leak of verdict.leaks) onLeak?.({ ...leak, action: "recover", attempt });
				return { type: "commit", message: verdict.message };
			}
			const closed = discardedReply(message, verdict.leak);
			const failed = message.stopReason === "error" || message.stopReason === "aborted";
			if (failed || attempt >= MAX_HARMONY_RETRIES) {
				onLeak?.({ ...verdict.leak, action: "fail", attempt });
				return { type: "commit", message: failed ? { ...message, content: [] } : closed };
			}
			onLeak?.({ ...verdict.leak, action: "retry", attempt });
			return { type: "retry", discarded: closed };
		},
		retryOptions(options: StreamOptions, attempt: number): StreamOptions {
			const temperature = nudgedTemperature(options.temperature, attempt);
			return temperature === undefined ? options : { ...options, temperature };
		},
	};
}
