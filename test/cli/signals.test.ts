/**
 * SIGINT/SIGTERM (exit code 130): the decision as a table, then the handler on a real Agent and the real
 * interactive mode, with the process replaced by a stand-in that records `exit` (the signals are emitted on
 * it, so no test process is signalled or exited). The real-signal paths run end to end in rpc.test.ts.
 */
import { EventEmitter } from "node:events";
import { PassThrough } from "node:stream";
import { afterEach, describe, expect, it, vi } from "vitest";
import { Agent } from "../../src/agent/agent.js";
import { CliApp } from "../../src/cli/app.js";
import { parseCliArgs } from "../../src/cli/args.js";
import { CSI } from "../../src/cli/interactive/ansi.js";
import { runInteractive } from "../../src/cli/interactive/index.js";
import { EXIT } from "../../src/cli/outcome.js";
import { SignalHandler, type SignalSource, signalAction } from "../../src/cli/signals.js";
import { scriptedModel, textReply, toolReply } from "../../src/testing/index.js";
import type { AgentTool } from "../../src/tools/types.js";
import { VirtualTerminal } from "./interactive-vt.js";
import { cleanUpAfterEach, tempProject } from "./support.js";

cleanUpAfterEach();

/** `process` as the handler sees it: signals are emitted by the test, `exit` only records its code. */
class FakeProcess extends EventEmitter implements SignalSource {
	readonly exits: number[] = [];
	exit(code: number): void {
		this.exits.push(code);
	}
	signal(name: "SIGINT" | "SIGTERM"): void {
		this.emit(name, name);
	}
}

/** Runs until its signal fires. */
const waitTool: AgentTool = {
	name: "wait",
	description: "waits",
	parameters: { type: "object", properties: {} },
	execute: (_id, _args, signal) =>
		new Promise((_, reject) => signal.addEventListener("abort", () => reject(new Error("stopped")))),
};

function agentWith(script: Parameters<typeof scriptedModel>[0]): Agent {
	const scripted = scriptedModel(script);
	return new Agent({ model: scripted.model, streamFn: scripted.stream, tools: [waitTool] });
}

/** Until the run's tool is running (bounded). */
async function untilStreaming(agent: Agent): Promise<void> {
	for (let i = 0; i < 400 && agent.state.pendingToolCalls.size === 0; i++)
		await new Promise((resolve) => setTimeout(resolve, 5));
	if (agent.state.pendingToolCalls.size === 0) throw new Error("the run never started its tool");
}

const handlers: SignalHandler[] = [];
afterEach(() => {
	for (const handler of handlers.splice(0)) handler.dispose();
	vi.unstubAllEnvs();
});

function handle(agent: Agent, source: FakeProcess): SignalHandler {
	const handler = new SignalHandler(agent, source);
	handlers.push(handler);
	return handler;
}

describe("what a signal does", () => {
	it.each([
		[{ busy: true, handling: false }, "abort"],
		[{ busy: false, handling: false }, "stop"],
		[{ busy: true, handling: true }, "exit"],
		[{ busy: false, handling: true }, "exit"],
	] as const)("%j → %s", (state, action) => {
		expect(signalAction(state)).toBe(action);
	});
});

describe("SignalHandler on a real Agent", () => {
	it("with no run: the mode's stop, then a second signal exits 130 at once after the clean-ups", () => {
		const source = new FakeProcess();
		const handler = handle(agentWith([]), source);
		const done: string[] = [];
		handler.onStop(() => done.push("stop"));
		handler.onForcedExit(() => done.push("clean-up"));
		source.signal("SIGTERM");
		expect(done).toEqual(["stop"]);
		expect(source.exits).toEqual([]);
		source.signal("SIGINT");
		expect(done).toEqual(["stop", "clean-up"]);
		expect(source.exits).toEqual([EXIT.interrupted]);
	});

	it("with no run and no mode to stop (print mode reading stdin): exits 130 at once", () => {
		const source = new FakeProcess();
		handle(agentWith([]), source);
		source.signal("SIGINT");
		expect(source.exits).toEqual([EXIT.interrupted]);
	});

	it("a signal aborts the run; once that run has ended, a signal aborts the next run instead of exiting", async () => {
		const agent = agentWith([toolReply("wait"), toolReply("wait")]);
		const outcomes: unknown[] = [];
		agent.subscribe((event) => event.type === "agent_end" && outcomes.push(event.outcome));
		const source = new FakeProcess();
		handle(agent, source);
		for (const prompt of ["go", "again"]) {
			const run = agent.prompt(prompt);
			await untilStreaming(agent);
			source.signal("SIGINT");
			await run;
		}
		expect(source.exits).toEqual([]);
		const aborted = { type: "aborted", reason: "interrupted (SIGINT)" };
		expect(outcomes).toEqual([aborted, aborted]);
	});

	it("a second signal before the aborted run has ended exits 130 at once", async () => {
		const agent = agentWith([toolReply("wait"), textReply("never")]);
		const source = new FakeProcess();
		handle(agent, source);
		const run = agent.prompt("go");
		await untilStreaming(agent);
		source.signal("SIGINT");
		source.signal("SIGINT");
		expect(source.exits).toEqual([EXIT.interrupted]);
		await run;
	});
});

/** A terminal for the interactive mode: the virtual screen, plus the stream calls runInteractive makes. */
class TestTerminal extends VirtualTerminal {
	on(): this {
		return this;
	}
	off(): this {
		return this;
	}
}

async function interactiveDemo(source: FakeProcess) {
	vi.stubEnv("TMPDIR", tempProject());
	const app = await CliApp.create({
		args: parseCliArgs(["--demo", "--no-session"]),
		config: {},
		cwd: tempProject(),
		version: "test",
	});
	const signals = handle(app.agent, source);
	const terminal = new TestTerminal(100, 30);
	const input = new PassThrough();
	const exitCode = runInteractive(app, {
		input: input as unknown as NodeJS.ReadStream,
		output: terminal as unknown as NodeJS.WriteStream,
		env: { NO_COLOR: "1" },
		signals,
	});
	return { app, terminal, input, exitCode };
}

describe("signals in the interactive mode", () => {
	it("with no run, a signal leaves as /exit does: exit 130, the terminal restored", async () => {
		const source = new FakeProcess();
		const { app, terminal, exitCode } = await interactiveDemo(source);
		source.signal("SIGTERM");
		expect(await exitCode).toBe(EXIT.interrupted);
		expect(source.exits).toEqual([]);
		expect(terminal.written.endsWith(CSI.bracketedPasteOff)).toBe(true);
		await app.close();
	});

	it("a forced exit (second signal during a run) still restores the terminal first", async () => {
		const source = new FakeProcess();
		const { app, terminal, input } = await interactiveDemo(source);
		input.write("\r"); // the demo's prefilled prompt
		const liveInput = () => terminal.screen().some((line) => line.startsWith("» "));
		for (let i = 0; i < 200 && !liveInput(); i++) await new Promise((resolve) => setTimeout(resolve, 5));
		expect(liveInput()).toBe(true); // the input line of a running agent, in the live region
		terminal.take();
		source.signal("SIGINT");
		source.signal("SIGINT");
		expect(source.exits).toEqual([EXIT.interrupted]);
		const restore = terminal.take();
		expect(restore).toContain(CSI.bracketedPasteOff);
		expect(restore).toContain(CSI.showCursor);
		expect(liveInput()).toBe(false); // the live region is erased
		await app.agent.waitForIdle();
		await app.close();
	});
});
