/**
 * Table runners for the error paths every provider shares (SPEC E3, A8): a failure that must end the call
 * with a classified `errorKind` after exactly one request, and a transient failure the provider must retry
 * once before the reply arrives. Rows carry the wire-specific error bodies; the runner owns the assertions.
 */
import { expect, it } from "vitest";
import type { AssistantMessage, ErrorKind } from "../../../src/core/messages.js";
import { textOf } from "./content.js";
import { serve } from "./loopback.js";
import type { ScriptedResponse } from "./replay-server.js";

/** Runs one provider call against a server answering with `script`; reports the requests the call made. */
export type ErrorPathCall = (
	script: ScriptedResponse[],
) => Promise<{ message: AssistantMessage; requests: number }>;

/** An `ErrorPathCall` on a fresh per-test server (see loopback.ts): `callAt` makes the call against its URL. */
export function onFreshServer(
	callAt: (baseUrl: string) => Promise<{ message: AssistantMessage }>,
): ErrorPathCall {
	return async (script) => {
		const server = await serve(...script);
		const { message } = await callAt(server.baseUrl);
		return { message, requests: server.requests.length };
	};
}

/** A failure that is final: the call ends with `errorKind` and is not retried. */
export interface FinalFailureRow {
	name: string;
	script: ScriptedResponse[];
	errorKind: ErrorKind;
}

/** A transient failure followed by a good reply whose text is `text`. */
export interface RecoveredFailureRow {
	name: string;
	script: ScriptedResponse[];
	text: string;
}

/** One test per row: the call ends with the row's `errorKind` after exactly one request. */
export function itEndsWithoutRetry(call: ErrorPathCall, rows: readonly FinalFailureRow[]): void {
	for (const row of rows)
		it(row.name, async () => {
			const { message, requests } = await call(row.script);
			expect(message.errorKind).toBe(row.errorKind);
			expect(requests).toBe(1);
		});
}

/** One test per row: the reply's text arrives after exactly one retry. */
export function itRecoversAfterOneRetry(call: ErrorPathCall, rows: readonly RecoveredFailureRow[]): void {
	for (const row of rows)
		it(row.name, async () => {
			const { message, requests } = await call(row.script);
			expect(textOf(message)).toBe(row.text);
			expect(requests).toBe(2);
		});
}
