/**
 * Child process of test/approvals/agent.test.ts (SPEC T16): reads a paused Agent's saved state as JSON on
 * stdin, approves every pending call in a fresh Agent, and prints one JSON report line.
 */
import { Agent, type AgentEvent } from "../../src/index.js";
import { scriptedModel, textReply } from "../../src/testing/index.js";
import { echoTool } from "../support/run.js";

let input = "";
for await (const chunk of process.stdin) input += chunk;
const saved = JSON.parse(input);
const ran: string[] = [];
const scripted = scriptedModel([textReply("resumed in the child")]);
const agent = new Agent({
	model: scripted.model,
	streamFn: scripted.stream,
	tools: [echoTool("write", { needsApproval: true, log: ran })],
	messages: saved.messages,
	pendingApprovals: saved.pendingApprovals,
});
let outcome = "none";
agent.subscribe((event: AgentEvent) => {
	if (event.type === "agent_end") outcome = event.outcome.type;
});
for (const pending of agent.state.pendingApprovals) await agent.approve(pending.toolCallId);
const last = scripted.calls[0]?.context.messages.at(-1) as { content?: { text?: string }[] } | undefined;
process.stdout.write(
	`${JSON.stringify({ outcome, ran, messages: agent.state.messages, modelSaw: last?.content?.[0]?.text })}\n`,
);
