// Steering and follow-ups that outlive their run: carried over from a cancelled or finished run to the next one,
// and sent again after a rewind, against a real PostgreSQL. docs/durable.md rules 5 and 8.
import { DBOS } from "@dbos-inc/dbos-sdk";
import { describe, expect, it } from "vitest";
import { registerDbosAgent } from "../../src/dbos/index.js";
import { openEnvelopes } from "../../src/dbos/messages.js";
import type { DurableAgent, DurableRunInput } from "../../src/durable/index.js";
import type { AgentMessage, AgentTool } from "../../src/index.js";
import { scriptedModel } from "../../src/testing/index.js";
import { user } from "../support/run.js";
import { dbosFixture } from "./support/fixture.js";
import { createGate, type Gate } from "./support/gate.js";
import { describeWithPostgres } from "./support/postgres.js";

/** Gates by `<run id>:<tool call id>`, made on first mention by the test or the tool. */
const gates = new Map<string, Gate>();
function gate(key: string): Gate {
	let found = gates.get(key);
	if (!found) {
		found = createGate();
		gates.set(key, found);
	}
	return found;
}

/** Two tool calls, each waiting at its gate (`g1`, then `g2`), then a text reply for every later call. */
function gatedAgent(): DurableAgent {
	const scripted = scriptedModel(
		(call) => {
			const results = call.context.messages.filter((message) => message.role === "toolResult").length;
			if (results >= 2) return { content: [{ type: "text", text: "done" }] };
			return { content: [{ type: "toolCall", id: `g${results + 1}`, name: "wait", arguments: {} }] };
		},
		{ now: () => 0 },
	);
	const wait: AgentTool = {
		name: "wait",
		description: "Wait at the test's gate.",
		parameters: { type: "object", properties: {} },
		idempotent: true,
		async execute(id) {
			const at = gate(`${DBOS.workflowID}:${id}`);
			at.inside();
			await at.opened;
			return { content: [{ type: "text", text: "waited" }] };
		},
	};
	return { model: scripted.model, streamFn: scripted.stream, tools: [wait] };
}

/** Replies "ok" to everything. */
function plainAgent(): DurableAgent {
	const scripted = scriptedModel(() => ({ content: [{ type: "text", text: "ok" }] }), { now: () => 0 });
	return { model: scripted.model, streamFn: scripted.stream };
}

const input = (text: string): DurableRunInput => ({ prompts: [user(text)] });

/** The texts of the user messages of a transcript, in order. */
function userTexts(messages: AgentMessage[]): unknown[] {
	return messages.filter((message) => message.role === "user").map((message) => message.content);
}

describe("openEnvelopes", () => {
	const envelope = (position: number, text: string) => ({
		capstan: "message",
		id: `m${position}`,
		position,
		message: user(text),
	});

	it("puts what one boundary read in the order it was sent, bare messages last", () => {
		const bare = user("bare");
		expect(openEnvelopes([envelope(7, "b"), bare, envelope(3, "a"), envelope(9, "c")])).toEqual([
			user("a"),
			user("b"),
			user("c"),
			bare,
		]);
		expect(openEnvelopes([])).toEqual([]);
	});
});

describeWithPostgres("capstan/dbos: steering and follow-ups outlive their run", (serverUrl) => {
	const gated = registerDbosAgent({ name: "gated", agent: gatedAgent, queuePollingMs: 50 });
	const plain = registerDbosAgent({ name: "plain", agent: plainAgent });
	const fixture = dbosFixture(serverUrl, {
		database: "capstan_messages",
		applicationName: "capstan-messages-test",
		executorId: "messages",
		admin: true,
	});

	/** The message texts the run's `DBOS.recv` steps returned, and the step that read each. */
	async function reads(runId: string): Promise<Map<unknown, number>> {
		const read = new Map<unknown, number>();
		for (const step of (await DBOS.listWorkflowSteps(runId)) ?? []) {
			if (step.name !== "DBOS.recv" || step.output === null) continue;
			// An envelope of DbosAgentRuns, or a bare message as DBOS.send sends it.
			const output = step.output as { message?: { content: unknown }; content?: unknown };
			read.set((output.message ?? output).content, step.functionID);
		}
		return read;
	}

	it("a cancelled run's steering, read or not, and its follow-ups reach the next run started with carryOverFrom, once each and in order (rule 5)", async () => {
		const cancelled = "cancelled-run";
		await fixture.runs.start(gated.name, input("book the trip"), { runId: cancelled });
		await gate(`${cancelled}:g1`).reached;
		await fixture.runs.steer(cancelled, "s1");
		gate(`${cancelled}:g1`).open();
		// The model made the second call after the boundary that read s1.
		await gate(`${cancelled}:g2`).reached;
		await fixture.runs.steer(cancelled, "s2");
		await fixture.runs.followUp(cancelled, "f1");
		await DBOS.cancelWorkflow(cancelled);
		gate(`${cancelled}:g2`).open();
		await expect(fixture.runs.result(cancelled)).rejects.toThrow();
		expect([...(await reads(cancelled)).keys()]).toEqual(["s1"]);

		const next = await fixture.runs.start(plain.name, input("next"), {
			carryOverFrom: cancelled,
			runId: "next-run",
		});
		expect(next).toBe("next-run");
		const result = await fixture.runs.result(next);
		expect(userTexts(result.messages)).toEqual(["next", "s1", "s2", "f1"]);

		// A retried start joins the run that has the messages; another run id is refused; nothing is sent twice.
		expect(
			await fixture.runs.start(plain.name, input("next"), { carryOverFrom: cancelled, runId: next }),
		).toBe(next);
		expect(await fixture.runs.start(plain.name, input("next"), { carryOverFrom: cancelled })).toBe(next);
		await expect(
			fixture.runs.start(plain.name, input("next"), { carryOverFrom: cancelled, runId: "another-run" }),
		).rejects.toThrow(/already carried over to run "next-run"/);
		expect(await fixture.runs.status("another-run")).toBeUndefined();
		// The next run read all it was sent: a run carrying over from it gets nothing.
		const third = await fixture.runs.start(plain.name, input("third"), { carryOverFrom: next });
		expect(userTexts((await fixture.runs.result(third)).messages)).toEqual(["third"]);
	});

	it("a completed run's unread follow-up is carried over, and what it read is not; a run still running is refused", async () => {
		const done = "completed-run";
		await fixture.runs.start(gated.name, input("book the trip"), { runId: done });
		await gate(`${done}:g1`).reached;
		await fixture.runs.steer(done, "read");
		gate(`${done}:g1`).open();
		await expect(fixture.runs.start(plain.name, input("next"), { carryOverFrom: done })).rejects.toThrow(
			/has not ended \(status PENDING\)/,
		);
		gate(`${done}:g2`).open();
		expect(userTexts((await fixture.runs.result(done)).messages)).toEqual(["book the trip", "read"]);
		await fixture.runs.followUp(done, "too late");
		const next = await fixture.runs.start(plain.name, input("next"), { carryOverFrom: done });
		expect(userTexts((await fixture.runs.result(next)).messages)).toEqual(["next", "too late"]);
	});

	it("a rewind sends again the steering it deleted and the follow-up never read: the replay loses nothing (rule 8)", async () => {
		const rewound = "rewound-run";
		await fixture.runs.start(gated.name, input("book the trip"), { runId: rewound });
		await gate(`${rewound}:g1`).reached;
		await fixture.runs.steer(rewound, "s1");
		gate(`${rewound}:g1`).open();
		await gate(`${rewound}:g2`).reached;
		await fixture.runs.steer(rewound, "s2");
		gate(`${rewound}:g2`).open();
		expect(userTexts((await fixture.runs.result(rewound)).messages)).toEqual(["book the trip", "s1", "s2"]);
		await fixture.runs.followUp(rewound, "f1");

		// From the boundary that read s2: DBOS keeps s1 (read before), deletes s2 (read after) and f1 (unread).
		const startStep = (await reads(rewound)).get("s2");
		expect(startStep).toBeTypeOf("number");
		await fixture.runs.rewind(rewound, { startStep: startStep as number });
		const result = await fixture.runs.result(rewound);
		expect(userTexts(result.messages)).toEqual(["book the trip", "s1", "s2", "f1"]);
		expect(result.outcome).toEqual({ type: "completed" });
		expect(await fixture.runs.status(rewound)).toMatchObject({ status: "SUCCESS" });
	});

	/** Resolve once a session of the database waits on a lock of `kind` in a query that mentions `text`. */
	async function waitForWaiter(kind: "relation" | "tuple" | "transactionid" | "advisory", text: string) {
		for (;;) {
			// Inside a transaction the statistics are a snapshot taken at their first read: take a new one.
			await fixture.admin.query("SELECT pg_stat_clear_snapshot()");
			const { rows } = await fixture.admin.query<{ pid: number }>(
				"SELECT pid FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND wait_event = $1 AND query LIKE $2",
				[kind, `%${text}%`],
			);
			if (rows[0]) return rows[0].pid;
			await new Promise((resolve) => setTimeout(resolve, 5));
		}
	}

	it("a steer racing a carry-over from its run, and one sent after it, reach the run carried to (rule 5)", async () => {
		const cancelled = "race-cancelled";
		await fixture.runs.start(gated.name, input("book the trip"), { runId: cancelled });
		await gate(`${cancelled}:g1`).reached;
		await DBOS.cancelWorkflow(cancelled);
		gate(`${cancelled}:g1`).open();
		await expect(fixture.runs.result(cancelled)).rejects.toThrow();

		// The steer's transaction is under way (its record written) and held at DBOS's message insert, whose
		// foreign key waits for the cancelled run's status row; the carry-over starts meanwhile.
		await fixture.admin.query("BEGIN");
		await fixture.admin.query("SELECT 1 FROM dbos.workflow_status WHERE workflow_uuid = $1 FOR UPDATE", [
			cancelled,
		]);
		const racing = fixture.runs.steer(cancelled, "racing");
		await waitForWaiter("transactionid", "");
		const next = fixture.runs.start(gated.name, input("next"), {
			carryOverFrom: cancelled,
			runId: "race-next",
		});
		// Either it waits for the steer or (before the fix) it finished without it.
		await Promise.race([next, waitForWaiter("advisory", "pg_advisory_xact_lock")]);
		await fixture.admin.query("COMMIT");
		await racing;
		expect(await next).toBe("race-next");
		// Sent once the carry-over is done: the old run will never read it, the run carried to does.
		await gate("race-next:g1").reached;
		await fixture.runs.followUp(cancelled, "after");
		gate("race-next:g1").open();
		gate("race-next:g2").open();
		expect(userTexts((await fixture.runs.result("race-next")).messages)).toEqual(["next", "racing", "after"]);
	});

	it("a steer whose connection is lost mid-transaction fails; the process does not end and the next steer goes through", async () => {
		const lost = "lost-connection";
		await fixture.runs.start(gated.name, input("book the trip"), { runId: lost });
		await gate(`${lost}:g1`).reached;
		await fixture.admin.query("BEGIN");
		await fixture.admin.query("LOCK TABLE capstan.run_messages IN ACCESS EXCLUSIVE MODE");
		const steer = fixture.runs.steer(lost, "cut off");
		await fixture.admin.query("SELECT pg_terminate_backend($1)", [
			await waitForWaiter("relation", "run_messages"),
		]);
		await expect(steer).rejects.toThrow(/terminat/);
		await fixture.admin.query("ROLLBACK");
		await fixture.runs.steer(lost, "s1");
		gate(`${lost}:g1`).open();
		gate(`${lost}:g2`).open();
		expect(userTexts((await fixture.runs.result(lost)).messages)).toEqual(["book the trip", "s1"]);
	});

	it("a rewind cut short after DBOS's rewind, repeated, puts the run back on its own queue (rule 8)", async () => {
		const rewound = "rewound-twice";
		await fixture.runs.start(gated.name, input("book the trip"), { runId: rewound });
		await gate(`${rewound}:g1`).reached;
		await fixture.runs.steer(rewound, "s1");
		gate(`${rewound}:g1`).open();
		gate(`${rewound}:g2`).open();
		expect(userTexts((await fixture.runs.result(rewound)).messages)).toEqual(["book the trip", "s1"]);
		const queue = (await DBOS.getWorkflowStatus(rewound))?.queueName;
		expect(queue).toBe(gated.queueName);

		// The connection sending the messages again is lost: DBOS has rewound the run onto the hold queue.
		await fixture.admin.query("BEGIN");
		await fixture.admin.query("LOCK TABLE capstan.run_messages IN ACCESS EXCLUSIVE MODE");
		const first = fixture.runs.rewind(rewound, { startStep: (await reads(rewound)).get("s1") as number });
		const sending = await waitForWaiter("relation", "capstan.run_messages");
		await fixture.admin.query("SELECT pg_terminate_backend($1)", [sending]);
		await expect(first).rejects.toThrow();
		await fixture.admin.query("ROLLBACK");
		expect(await fixture.runs.status(rewound)).toMatchObject({ status: "ENQUEUED" });

		await fixture.runs.rewind(rewound, { startStep: 0 });
		expect(userTexts((await fixture.runs.result(rewound)).messages)).toEqual(["book the trip", "s1"]);
		expect((await DBOS.getWorkflowStatus(rewound))?.queueName).toBe(queue);
	});
});
