// SPEC C2: the run's incremental default conversion must always equal converting the whole transcript.
import { describe, expect, it } from "vitest";
import { defaultConvertToLlm } from "../../src/context/convert.js";
import type { AgentMessage, AssistantMessage, ToolResultMessage } from "../../src/core/messages.js";
import { WireLog } from "../../src/loop/wire-log.js";
import { assistant, user } from "../support/run.js";

const call = (id: string): AssistantMessage =>
	assistant([{ type: "toolCall", id, name: "echo", arguments: { text: id } }], "toolUse");
const result = (id: string): ToolResultMessage => ({
	role: "toolResult",
	toolCallId: id,
	toolName: "echo",
	content: [{ type: "text", text: id }],
	isError: false,
	timestamp: 0,
});
const refused = (id: string): AssistantMessage => ({ ...call(id), stopDetails: { type: "refusal" } });

describe("WireLog (SPEC C2 incremental conversion)", () => {
	it("equals the full conversion call after call, converting each message once", () => {
		const log = new WireLog();
		const transcript: AgentMessage[] = [user("a")];
		const first = log.sync(transcript, [user("b")]);
		expect(first).toEqual(defaultConvertToLlm([user("a"), user("b")]));
		// The pending message lands in the transcript as the loop commits it; the next call adds the reply.
		transcript.push(user("b"), call("c1"), result("c1"));
		const second = log.sync(transcript, []);
		expect(second).toBe(first); // the log itself, no copy per call (bench W2)
		expect(second).toEqual(defaultConvertToLlm(transcript));
		expect(second.filter((m) => m.role === "user")).toHaveLength(2); // "b" was not converted twice
	});

	it("a pending message seen twice before it lands is converted once", () => {
		const log = new WireLog();
		const pending = [user("p")];
		log.sync([user("a")], pending);
		expect(log.sync([user("a")], pending)).toEqual(defaultConvertToLlm([user("a"), ...pending]));
	});

	it("rebuilds instead of trusting the order when the transcript grows differently", () => {
		const log = new WireLog();
		const transcript: AgentMessage[] = [user("a")];
		const pending = user("late");
		log.sync(transcript, [pending]);
		transcript.push(user("other"), pending); // something else landed first
		expect(log.sync(transcript, [])).toEqual(defaultConvertToLlm(transcript));
	});

	it("keeps refused replies and the results pairing them off the wire (SPEC C3)", () => {
		const log = new WireLog();
		const transcript: AgentMessage[] = [user("a"), refused("r1")];
		log.sync(transcript, []);
		transcript.push(result("r1"), user("b"));
		expect(log.sync(transcript, [])).toEqual([user("a"), user("b")]);
	});

	it("sends the results of a later reply that reuses a refused reply's call id (SPEC C3, I1)", () => {
		const log = new WireLog();
		const later = call("r1");
		const transcript: AgentMessage[] = [
			user("a"),
			refused("r1"),
			result("r1"),
			user("b"),
			later,
			result("r1"),
		];
		expect(log.sync(transcript, [])).toEqual([user("a"), user("b"), later, result("r1")]);
		expect(defaultConvertToLlm(transcript)).toEqual([user("a"), user("b"), later, result("r1")]);
	});

	it("takes a T4 write-back of a reply it already holds", () => {
		const log = new WireLog();
		const before = call("c1");
		const transcript: AgentMessage[] = [user("a"), before];
		log.sync(transcript, []);
		const after = { ...before, content: [{ ...before.content[0], arguments: { text: "revised" } }] };
		transcript[1] = after as AssistantMessage;
		log.replace(before, after as AssistantMessage);
		expect(log.sync(transcript, [])[1]).toBe(after);
	});
});
