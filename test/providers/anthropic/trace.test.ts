import { describe, expect, it } from "vitest";
import type { AssistantMessageEvent } from "../../../src/core/events.js";
import { fixtureBytes } from "../support/fixtures.js";
import { serverForFile } from "../support/loopback.js";
import { collect, testModel } from "./helpers.js";

const server = serverForFile();

/** Compact event trace (STYLE 7): runs of the same event collapse to `name×n`. */
function trace(events: AssistantMessageEvent[]): string {
	const names = events.map((event) =>
		event.type === "done"
			? `done:${event.reason}`
			: event.type === "error"
				? `error:${event.reason}`
				: event.type,
	);
	const out: string[] = [];
	for (let i = 0; i < names.length; ) {
		let j = i;
		while (names[j] === names[i]) j++;
		out.push(j - i > 1 ? `${names[i]}×${j - i}` : (names[i] as string));
		i = j;
	}
	return out.join(" ");
}

// Empty `input_json_delta` fragments (each tool call's first one, recorded as `""`) carry nothing and emit no
// toolcall_delta: 4 recorded fragments → 3 deltas; a no-argument call → none.
describe("golden event traces on recorded streams (SPEC E2)", () => {
	it.each([
		["anthropic-messages/test_prompt.sse", "start text_start text_delta×4 text_end done:stop"],
		[
			"anthropic-messages/TestAnthropicCommon__claude-sonnet-4__multi_tool_streaming.interaction-0.sse",
			"start text_start text_delta×4 text_end toolcall_start toolcall_delta×3 toolcall_end toolcall_start toolcall_delta×3 toolcall_end done:toolUse",
		],
		[
			"anthropic-messages/test_fixed_version_tool_chain_with_thinking_display_regression.interaction-0.sse",
			"start thinking_start thinking_delta×3 thinking_end toolcall_start toolcall_end done:toolUse",
		],
	])("%s", async (file, expected) => {
		server.enqueue({ type: "sse", body: fixtureBytes(file), split: { seed: 2 } });
		const { events } = await collect(testModel(server.baseUrl));
		expect(trace(events)).toBe(expected);
	});
});
