/**
 * Stop-reason mapping (rule M4). Total: a provider value missing from the table maps to `error` with the raw
 * value kept in `stopDetails`; it never throws. A mapping may also carry finer details (`pause_turn` on a
 * `stop`, `refusal`/`content_filter` on an `error`).
 */

import type { AssistantMessageBuilder } from "../../core/assistant-builder.js";
import type { ErrorKind, StopDetails } from "../../core/messages.js";

/** The mapped outcome of one provider stop value. */
export interface MappedStop {
	/** The stop reason the reply ends with (rule M4). */
	reason: "stop" | "toolUse" | "length" | "error";
	/** Finer details put on the message as `stopDetails`. */
	details?: StopDetails;
	/** For `error`: the message to put on the assistant message. */
	errorMessage?: string;
	/** For `error`: the classified kind. */
	errorKind?: ErrorKind;
}

/** A provider's table from raw stop values to outcomes. */
export type StopReasonTable = Readonly<Record<string, MappedStop>>;

/** Map a raw provider stop value through `table`; unknown or missing values become `error` (rule M4). */
export function mapStopReason(raw: string | null | undefined, table: StopReasonTable): MappedStop {
	if (typeof raw === "string" && Object.hasOwn(table, raw)) {
		const mapped = table[raw] as MappedStop;
		return mapped.details ? { ...mapped, details: { ...mapped.details, raw } } : { ...mapped };
	}
	const shown = raw === null || raw === undefined ? "none" : raw;
	return {
		reason: "error",
		details: { type: "unknown_stop_reason", raw: shown },
		errorMessage: `provider returned an unknown stop reason: ${shown}`,
		errorKind: "malformed_response",
	};
}

/** Finish `builder` with a mapped stop: `done` for runnable reasons, `fail` (keeping details) for `error`. */
export function finishWithStop(builder: AssistantMessageBuilder, stop: MappedStop): void {
	if (stop.details) builder.setStopDetails(stop.details);
	if (stop.reason === "error") {
		builder.fail("error", stop.errorMessage ?? "provider stopped with an error", stop.errorKind);
		return;
	}
	builder.done(stop.reason);
}
