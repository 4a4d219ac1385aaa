// Tool approvals in Restate-backed durable runs (SPEC T15, T16) on a real Restate server: a conversation
// pauses before a tool that needs approval in a worker process, and this process resumes it over the ingress.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import type { ToolResultMessage } from "../../src/index.js";
import { userMessage } from "../../src/index.js";
import { RestateAgentClient, RestateRequestError } from "../../src/restate/index.js";
import { countLines, gateFile } from "./support/agent.js";
import {
	describeWithRestate,
	freePort,
	startWorker,
	tempDir,
	uniqueName,
	type WorkerProcess,
} from "./support/services.js";

const prompt = [userMessage("Find alpha, pay, find beta, then wait for the gate.", 1)];

describeWithRestate("capstan/restate: tool approvals across processes", (urls) => {
	const name = uniqueName("approvals");
	const countFile = join(tempDir("restate-approvals"), "count");
	let worker: WorkerProcess;
	let client: RestateAgentClient;
	beforeAll(async () => {
		const port = await freePort();
		worker = await startWorker({ name, port, adminUrl: urls.adminUrl, countFile, approveCharge: true });
		client = new RestateAgentClient({ ingressUrl: urls.ingressUrl, name });
		writeFileSync(gateFile(countFile, "gate"), ""); // the last tool never waits here
	}, 40_000);
	afterAll(async () => {
		await worker?.kill();
	});

	const chargeRuns = () => countLines(countFile).filter((line) => line === "tool call_2 start").length;
	const chargeResult = (messages: readonly { role: string }[]) =>
		messages.find(
			(m): m is ToolResultMessage =>
				m.role === "toolResult" && (m as ToolResultMessage).toolCallId === "call_2",
		);

	it("SPEC T15, T16: the run pauses with its pending call in state; an approval runs the charge exactly once", {
		timeout: 60_000,
	}, async () => {
		const paused = await client.run("pay-1", { prompt });
		const pending = [{ toolCallId: "call_2", toolName: "charge", args: { amount: 5 } }];
		expect(paused.outcome).toEqual({ type: "awaiting_approval", pending });
		expect(await client.pendingApprovals("pay-1")).toEqual(pending);
		expect(chargeRuns()).toBe(0);
		// A prompt over the paused batch is refused for good (400, not retried), and changes nothing.
		const refused = await client.run("pay-1", { prompt: "hello?" }).catch((e: unknown) => e);
		expect(refused).toBeInstanceOf(RestateRequestError);
		expect((refused as RestateRequestError).status).toBe(400);
		expect((refused as Error).message).toMatch(/tool calls that have no results \(call_2\)/);

		const first = await client.resume("pay-1", { call_2: { approved: true } });
		const again = await client.resume("pay-1", { call_2: { approved: true } }); // a second process, say
		const result = await client.result(first);
		expect(result.outcome).toEqual({ type: "completed" });
		expect(chargeResult(result.added)).toMatchObject({ isError: false, content: [{ text: "charged 5" }] });
		const late = await client.result(again).catch((e: unknown) => e);
		expect((late as RestateRequestError).status).toBe(400);
		expect((late as Error).message).toMatch(/no call awaits approval \(decisions on call_2\)/);
		expect(chargeRuns()).toBe(1);
		expect(await client.pendingApprovals("pay-1")).toEqual([]);
		const transcript = await client.transcript("pay-1");
		expect(transcript.at(-1)).toMatchObject({ role: "assistant", content: [{ text: "All done." }] });
	});

	it("SPEC T16: a denial reaches the model and the tool never runs", { timeout: 60_000 }, async () => {
		const before = chargeRuns();
		await client.run("pay-2", { prompt });
		const result = await client.result(
			await client.resume("pay-2", { call_2: { approved: false, reason: "over budget" } }),
		);
		const denied = chargeResult(result.added);
		expect(denied?.isError).toBe(true);
		expect(denied?.content).toEqual([{ type: "text", text: expect.stringContaining("over budget") }]);
		expect(result.outcome).toEqual({ type: "completed" });
		expect(chargeRuns()).toBe(before);
	});
});
