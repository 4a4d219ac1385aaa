/**
 * Runners for the error paths every provider shares (SPEC E3, A4, A8), each pinning one rule with one set of
 * assertions: a final failure after exactly one request, a transient failure retried once, a refused key,
 * content kept after a reset, a stalled drip timing out. Providers pass only their wire bodies and how to
 * make a call (`onFreshServer` for a server per test, `onFileServer` for a file-wide one).
 */
import { expect, it } from "vitest";
import type { AssistantMessageEvent } from "../../../src/core/events.js";
import type { AssistantMessage, ErrorKind } from "../../../src/core/messages.js";
import type { ProviderStreamOptions } from "../../../src/providers/base/run-stream.js";
import type { Collected } from "./collect.js";
import { textOf } from "./content.js";
import { serve } from "./loopback.js";
import type { ReplayServer, ScriptedResponse } from "./replay-server.js";

/** What one call on an error path produced, and how many requests it made. */
export interface ErrorPathResult {
	message: AssistantMessage;
	events: AssistantMessageEvent[];
	requests: number;
}

/** Runs one provider call (with extra `options`) against a server answering with `script`. */
export type ErrorPathCall = (
	script: ScriptedResponse[],
	options?: ProviderStreamOptions,
) => Promise<ErrorPathResult>;

/** Makes the provider call against the server at `baseUrl`, with extra `options` on top of the test's own. */
export type CallAt = (baseUrl: string, options: ProviderStreamOptions) => Promise<Collected>;

/** An `ErrorPathCall` on a fresh per-test server (see loopback.ts). */
export function onFreshServer(callAt: CallAt): ErrorPathCall {
	return async (script, options = {}) => {
		const server = await serve(...script);
		const { message, events } = await callAt(server.baseUrl, options);
		return { message, events, requests: server.requests.length };
	};
}

/** An `ErrorPathCall` on the file's shared server (see `serverForFile`), counting only this call's requests. */
export function onFileServer(server: ReplayServer, callAt: CallAt): ErrorPathCall {
	return async (script, options = {}) => {
		server.enqueue(...script);
		const before = server.requests.length;
		const { message, events } = await callAt(server.baseUrl, options);
		return { message, events, requests: server.requests.length - before };
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

/** "401 → auth": the refused key ends the call as `auth`, its message says `why`, after one request. */
export function itRefusesTheKey(call: ErrorPathCall, refusal: ScriptedResponse, why: string): void {
	it("401 → auth, not retried", async () => {
		const { message, events, requests } = await call([refusal]);
		expect(message).toMatchObject({ stopReason: "error", errorKind: "auth" });
		expect(message.errorMessage).toContain(why);
		expect(events.at(-1)?.type).toBe("error");
		expect(requests).toBe(1);
	});
}

/** SPEC A4: a connection reset after `partial` (which streams `text`) keeps that text and is not retried. */
export function itKeepsContentAfterReset(call: ErrorPathCall, partial: string, text: string): void {
	it("a reset after content keeps the content and is not retried (SPEC A4)", async () => {
		const { message } = await call([{ type: "reset", partial }]);
		expect(message).toMatchObject({ stopReason: "error", errorKind: "network" });
		expect(message.content).toEqual([{ type: "text", text }]);
		expect(message.stopDetails?.type).toBe("stream_interrupted_after_content");
	});
}

/** A whole reply dripped in `chunkSize`-byte pieces every 300 ms ends as `timeout` under a 60 ms idle timeout. */
export function itTimesOutWhileDripping(call: ErrorPathCall, body: string, chunkSize: number): void {
	it("a server dripping bytes slower than the idle timeout ends as timeout", async () => {
		const { message } = await call([{ type: "drip", body, chunkSize, intervalMs: 300 }], {
			idleTimeoutMs: 60,
		});
		expect(message).toMatchObject({ stopReason: "error", errorKind: "timeout" });
	});
}
