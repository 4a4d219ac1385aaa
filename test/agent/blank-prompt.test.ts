/**
 * SPEC Q7: a user turn says something. A blank prompt after an exchange used to reach Anthropic without its
 * user turn (the builder leaves out whitespace-only text), so the request ended with the assistant's reply: a
 * prefill the model continues instead of answering. The Agent refuses it before anything runs or is queued.
 */
import { describe, expect, it } from "vitest";
import { Agent } from "../../src/agent/agent.js";
import type { AgentEvent } from "../../src/index.js";
import { scriptedModel } from "../../src/testing/index.js";
import { testModel } from "../providers/anthropic/helpers.js";
import { fixtureBytes } from "../providers/support/fixtures.js";
import { closeServersAfterEach, serve } from "../providers/support/loopback.js";

closeServersAfterEach();

const IMAGE = { type: "image" as const, data: "iVBORw0KGgo=", mimeType: "image/png" };

describe("SPEC Q7: the Agent refuses a user message with nothing in it", () => {
	it("Anthropic: a blank prompt after an exchange throws, and no request ends with the assistant's reply", async () => {
		const server = await serve({ type: "sse", body: fixtureBytes("anthropic-messages/test_prompt.sse") });
		const agent = new Agent({ model: testModel(server.baseUrl), streamOptions: { apiKey: "test-key" } });
		await agent.prompt("hi");
		const events: AgentEvent[] = [];
		agent.subscribe((event) => events.push(event));

		await expect(agent.prompt("   ")).rejects.toThrow(TypeError);
		await expect(agent.prompt(" \n\t")).rejects.toThrow(/Agent\.prompt: the message has nothing in it/);
		expect(server.requests).toHaveLength(1);
		expect(events).toEqual([]);
		expect(agent.state.messages.map((m) => m.role)).toEqual(["user", "assistant"]);
	});

	it("prompt([]) throws too: a prompt of no messages is no user turn", async () => {
		const scripted = scriptedModel([{ content: [{ type: "text", text: "unasked" }] }]);
		const agent = new Agent({ model: scripted.model, streamFn: scripted.stream });
		const events: AgentEvent[] = [];
		agent.subscribe((event) => events.push(event));
		await expect(agent.prompt([])).rejects.toThrow(/Agent\.prompt: no messages to send/);
		expect(events).toEqual([]);
		expect(scripted.calls).toHaveLength(0);
	});

	it("steer, followUp and aside refuse it too, and queue nothing", () => {
		const { model, stream } = scriptedModel([]);
		const agent = new Agent({ model, streamFn: stream });
		const blank = { role: "user" as const, content: [{ type: "text" as const, text: " " }], timestamp: 0 };
		expect(() => agent.steer("")).toThrow(/Agent\.steer: the message has nothing in it/);
		expect(() => agent.followUp(blank)).toThrow(TypeError);
		expect(() => agent.aside(blank)).toThrow(TypeError);
		expect(agent.peekSteeringQueue()).toEqual([]);
		expect(agent.peekFollowUpQueue()).toEqual([]);
	});

	it("an image with blank text is a prompt, and so is a custom message", async () => {
		const scripted = scriptedModel([{ content: [{ type: "text", text: "a cat" }] }]);
		const agent = new Agent({ model: scripted.model, streamFn: scripted.stream });
		await agent.prompt("", [IMAGE]);
		expect(agent.state.messages.map((m) => m.role)).toEqual(["user", "assistant"]);
		expect(() => agent.followUp({ role: "notice", text: "" } as never)).not.toThrow();
	});
});
