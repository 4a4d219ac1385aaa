import { describe, expect, it, vi } from "vitest";
import { createRunTelemetry } from "../../src/telemetry/collector.js";
import { textReply } from "../../src/testing/index.js";
import { echoTool, runScript } from "../support/run.js";

// The real factory, wrapped in a spy: the loop itself is not mocked, only observed creating (or not) a collector.
vi.mock("../../src/telemetry/collector.js", async (importOriginal) => {
	const original = await importOriginal<typeof import("../../src/telemetry/collector.js")>();
	return { ...original, createRunTelemetry: vi.fn(original.createRunTelemetry) };
});

describe("telemetry off is zero work — SPEC X3", () => {
	it("a run without `telemetry` creates no collector; a run with it creates exactly one", async () => {
		const factory = vi.mocked(createRunTelemetry);
		factory.mockClear();
		const script = [{ content: [{ type: "toolCall" as const, name: "echo", arguments: { text: "x" } }] }];
		const off = await runScript([...script, textReply("ok")], { tools: [echoTool()] });
		expect(off.events.at(-1)).toMatchObject({ type: "agent_end" });
		expect(factory).not.toHaveBeenCalled();

		const on = await runScript([...script, textReply("ok")], {
			tools: [echoTool()],
			config: { telemetry: {} },
		});
		expect(factory).toHaveBeenCalledTimes(1);
		expect(on.events.at(-1)).toMatchObject({ type: "agent_end", summary: { modelCalls: 2, toolCalls: 1 } });
	});
});
