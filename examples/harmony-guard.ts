// The Harmony leak guard (SPEC X4): a model flagged `compat.harmonyLeakGuard` leaks its channel protocol
// into a reply; the reply is discarded (never in the transcript) and the turn retried.
import { Agent } from "capstan";
import { harmonyLeakGuard } from "capstan/openai";
import { scriptedModel } from "capstan/testing";

const scripted = scriptedModel(
	[
		{
			content: [{ type: "text", text: "Sure<|end|><|start|>assistant<|channel|>commentary to=functions.ls" }],
		},
		{ content: [{ type: "text", text: "The directory has three files." }] },
	],
	{ model: { compat: { harmonyLeakGuard: true } } },
);
const agent = new Agent({
	model: scripted.model,
	streamFn: scripted.stream,
	streamOptions: { temperature: 0.6 },
	replyGuard: harmonyLeakGuard({
		onLeak: (leak) => console.log(`leak in ${leak.location} (${leak.marker}): ${leak.action}`),
	}),
});
await agent.prompt("What is in the directory?");
console.log("temperatures:", scripted.calls.map((c) => c.options.temperature).join(", "));
console.log(
	"transcript:",
	JSON.stringify(agent.state.messages.map((m) => (m.role === "assistant" ? m.content : m.role))),
);
