// Kill tests on a real Restate server (issue 11): real worker processes, SIGKILLed inside a tool; Restate
// retries the invocation on the next worker, which replays the journal. Compared with an uninterrupted
// in-memory run of the same scripted agent; every finished model call and tool is counted in a file.
import { rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, expect, it } from "vitest";
import { INTERRUPTED_TOOL_TEXT } from "../../src/durable/index.js";
import { type AgentMessage, agentLoop, userMessage } from "../../src/index.js";
import { RestateAgentClient } from "../../src/restate/index.js";
import {
	countLines,
	gateFile,
	STEER_TEXT,
	testAgent,
	WAIT_SIGNAL_TEXT,
	type WorkerConfig,
} from "./support/agent.js";
import {
	describeWithRestate,
	freePort,
	privateServer,
	type RestateUrls,
	startWorker,
	tempDir,
	uniqueName,
	type WorkerProcess,
	waitForLine,
} from "./support/services.js";

const prompt = userMessage("Find alpha, pay, find beta, then wait for the gate.", 1);

/** Timestamps come from clocks (journaled or not); everything else must be equal. */
function withoutTimestamps(messages: readonly AgentMessage[]): unknown[] {
	return JSON.parse(JSON.stringify(messages, (key, value) => (key === "timestamp" ? 0 : value)));
}

/** The same agent, in memory, never interrupted: what the durable run must end with. */
async function uninterruptedTranscript(): Promise<AgentMessage[]> {
	const dir = tempDir("restate-reference");
	const countFile = join(dir, "count");
	writeFileSync(gateFile(countFile, "gate"), "");
	const agent = testAgent({ countFile });
	const stream = agentLoop(
		[prompt],
		{ messages: [], tools: agent.tools ?? [], systemPrompt: agent.systemPrompt ?? "" },
		{ model: agent.model, streamFn: agent.streamFn! },
	);
	return stream.result(); // the prompt included: a run's result is every message it added
}

/** Each finished model call and tool, with how many times it finished. */
function finished(countFile: string): Record<string, number> {
	const counts: Record<string, number> = {};
	for (const line of countLines(countFile)) if (line.endsWith(" end")) counts[line] = (counts[line] ?? 0) + 1;
	return counts;
}

const ALL_FINISHED_ONCE = {
	"model 1 end": 1,
	"tool call_1 end": 1,
	"model 2 end": 1,
	"model 3 end": 1,
	"tool call_3 end": 1,
	"model 4 end": 1,
	"tool call_4 end": 1,
	"model 5 end": 1,
};

interface Scenario {
	urls: RestateUrls;
	name: string;
	countFile: string;
	port: number;
	hangAt: string;
}

async function scenario(urls: RestateUrls, hangAt: string): Promise<Scenario> {
	const countFile = join(tempDir("restate-kill"), "count");
	writeFileSync(gateFile(countFile, "gate"), ""); // the gate is open: this run never waits
	return { urls, name: uniqueName("kill"), countFile, port: await freePort(), hangAt };
}

function workerConfig(s: Scenario): WorkerConfig {
	return { name: s.name, port: s.port, adminUrl: s.urls.adminUrl, countFile: s.countFile, hangAt: s.hangAt };
}

const workers: WorkerProcess[] = [];
afterAll(async () => {
	for (const worker of workers) await worker.kill();
});

async function worker(s: Scenario & Pick<WorkerConfig, "holdMarkerOf">): Promise<WorkerProcess> {
	const started = await startWorker({
		...workerConfig(s),
		...(s.holdMarkerOf ? { holdMarkerOf: s.holdMarkerOf } : {}),
	});
	workers.push(started);
	return started;
}

describeWithRestate("capstan/restate: a run survives SIGKILL (issue 11)", (urls) => {
	it("SPEC L13: worker killed inside a non-idempotent tool; a new worker on the same URL finishes the run, the tool is reported, not re-run", {
		timeout: 90_000,
	}, async () => {
		const s = await scenario(urls, "call_2");
		const first = await worker(s);
		const client = new RestateAgentClient({ ingressUrl: urls.ingressUrl, name: s.name });
		const run = await client.start("conversation-1", { prompt: [prompt] });
		await waitForLine(s.countFile, "tool call_2 hang");
		await first.kill();
		await worker(s); // same port, so the same deployment URL; it re-registers on start
		const result = await client.result(run);

		expect(result.outcome).toEqual({ type: "completed" });
		const transcript = await client.transcript("conversation-1");
		const expected = withoutTimestamps(await uninterruptedTranscript()) as Array<Record<string, unknown>>;
		// The interrupted charge gets the core's report instead of its result; every other message is equal.
		const charge = expected.findIndex((m) => m.role === "toolResult" && m.toolCallId === "call_2");
		expected[charge] = {
			...expected[charge],
			content: [{ type: "text", text: INTERRUPTED_TOOL_TEXT }],
			details: { interrupted: true, executed: "unknown" },
			isError: true,
		};
		expect(withoutTimestamps(transcript)).toEqual(expected);
		expect(withoutTimestamps(result.added)).toEqual(expected);
		expect(finished(s.countFile)).toEqual(ALL_FINISHED_ONCE);
		// Started once (in the killed worker), never finished, never started again.
		expect(countLines(s.countFile).filter((line) => line.startsWith("tool call_2"))).toEqual([
			"tool call_2 start",
			"tool call_2 hang",
		]);
	});

	it("SPEC L13: worker killed after a start marker's action ran but before Restate had its result; the new worker runs the tool once, as never started", {
		timeout: 90_000,
	}, async () => {
		const s = await scenario(urls, "none");
		const first = await worker({ ...s, holdMarkerOf: "call_2" });
		const client = new RestateAgentClient({ ingressUrl: urls.ingressUrl, name: s.name });
		const run = await client.start("conversation-4", { prompt: [prompt] });
		// The charge waits for its marker, whose result the worker holds back: Restate has none.
		await waitForLine(s.countFile, "held call_2:started");
		await waitForLine(s.countFile, "run call_2 start");
		await first.kill();
		await worker(s);
		const result = await client.result(run);

		expect(result.outcome).toEqual({ type: "completed" });
		const expected = withoutTimestamps(await uninterruptedTranscript());
		expect(withoutTimestamps(result.added)).toEqual(expected);
		expect(finished(s.countFile)).toEqual({ ...ALL_FINISHED_ONCE, "tool call_2 end": 1 });
		expect(countLines(s.countFile).filter((line) => line.startsWith("tool call_2"))).toEqual([
			"tool call_2 start",
			"tool call_2 end",
		]);
	});

	it("SPEC L13: worker and server both killed inside an idempotent tool; the server restarts from its data, a new worker re-runs just that tool", {
		timeout: 120_000,
	}, async () => {
		const server = privateServer();
		try {
			server.start();
			const own = { ingressUrl: server.ingressUrl, adminUrl: server.adminUrl };
			const s = await scenario(own, "call_3");
			const first = await worker(s);
			const client = new RestateAgentClient({ ingressUrl: own.ingressUrl, name: s.name });
			const run = await client.start("conversation-2", { prompt: [prompt] });
			await waitForLine(s.countFile, "tool call_3 hang");
			await server.kill();
			await first.kill();
			server.start(); // same run directory: same data, same ports
			// Restate keeps an invocation on the deployment it started on: the new worker takes that URL over.
			await worker(s);
			const result = await client.result(run);

			expect(result.outcome).toEqual({ type: "completed" });
			const expected = withoutTimestamps(await uninterruptedTranscript());
			expect(withoutTimestamps(await client.transcript("conversation-2"))).toEqual(expected);
			expect(withoutTimestamps(result.added)).toEqual(expected);
			// The charge (call_2) finished before the crash and is not repeated; the idempotent lookup re-ran.
			expect(finished(s.countFile)).toEqual({ ...ALL_FINISHED_ONCE, "tool call_2 end": 1 });
			expect(countLines(s.countFile).filter((line) => line.startsWith("tool call_3"))).toEqual([
				"tool call_3 start",
				"tool call_3 hang",
				"tool call_3 start",
				"tool call_3 end",
			]);
		} finally {
			server.stop();
		}
	});

	it("SPEC Q2: a steer reaches a run that moved to a new worker (sent while no worker was up)", {
		timeout: 90_000,
	}, async () => {
		const s = await scenario(urls, "call_4");
		rmSync(gateFile(s.countFile, "gate")); // the re-run gated tool waits until the steer is in
		const first = await worker(s);
		const client = new RestateAgentClient({ ingressUrl: urls.ingressUrl, name: s.name });
		const run = await client.start("conversation-3", { prompt: [prompt] });
		await waitForLine(s.countFile, "tool call_4 hang");
		await first.kill();
		// Accepted by the server now, delivered once a worker serves the inbox again.
		const steered = client.steer("conversation-3", STEER_TEXT);
		await worker(s);
		await steered;
		await waitForLine(s.countFile, "tool call_4 start", 2); // the idempotent tool runs again
		expect(await client.pending("conversation-3")).toMatchObject({ steer: 1, active: run.invocationId });
		writeFileSync(gateFile(s.countFile, "gate"), "");
		const result = await client.result(run);
		expect(result.outcome).toEqual({ type: "completed" });
		const last = result.added
			.slice(-2)
			.map((m) => [m.role, JSON.stringify((m as { content: unknown }).content)]);
		expect(last[0]).toEqual(["user", JSON.stringify(STEER_TEXT)]);
		expect(last[1]?.[1]).toContain("Switched to the blue one.");
		expect(finished(s.countFile)).toMatchObject({
			"model 1 end": 1,
			"tool call_2 end": 1,
			"tool call_4 end": 1,
			"model 5 end": 1,
		});
	});
});

describeWithRestate("capstan/restate: the server ends an attempt while a tool runs (rule 2)", (urls) => {
	it("SPEC A1 / docs/durable.md Restate rule 2: the ended attempt's tool has its signal fired; the retry reports it interrupted, not re-run", {
		timeout: 90_000,
	}, async () => {
		const s = await scenario(urls, "none");
		// Short timeouts: the server ends the attempt soon after `wait_signal` starts, and retries it.
		await startWorker({ ...workerConfig(s), timeouts: { inactivityTimeout: 500, abortTimeout: 500 } }).then(
			(started) => workers.push(started),
		);
		const client = new RestateAgentClient({ ingressUrl: urls.ingressUrl, name: s.name });
		const run = await client.start("conversation-5", { prompt: WAIT_SIGNAL_TEXT });
		const result = await client.result(run);

		// The first attempt's tool did not run on unseen beside the retry: its signal fired when the server
		// closed the attempt.
		const aborted = `tool sig_1 aborted: The durable engine ended this attempt of the run: capstan/restate: the Restate server ended this attempt of conversation-5's run`;
		await waitForLine(s.countFile, aborted);
		const lines = countLines(s.countFile).filter((line) => line.startsWith("tool sig_1"));
		expect(lines).toEqual(["tool sig_1 start", aborted]);
		expect(result.outcome).toEqual({ type: "completed" });
		const interrupted = result.added.find((m) => m.role === "toolResult" && m.toolCallId === "sig_1");
		expect(interrupted).toMatchObject({ details: { interrupted: true, executed: "unknown" }, isError: true });
	});
});
