// Append-only context for prompt caching (SPEC X2), offline: an Agent owns one AppendOnlyContextManager for
// its whole conversation; each request body is built by the real Anthropic request builder (not sent) to show
// how many bytes it shares with the previous request and where the cache breakpoints go.
// Run: npx tsx examples/append-only.ts
import { Agent, AppendOnlyContextManager, type StreamFunction } from "capstan";
import { type AnthropicOptions, buildAnthropicRequest } from "capstan/anthropic";
import { scriptedModel, textReply, toolReply } from "capstan/testing";

const scripted = scriptedModel(
	[
		toolReply("read_file", { path: "README.md" }),
		toolReply("read_file", { path: "package.json" }),
		textReply("Both files read."),
		toolReply("read_file", { path: "src/index.ts" }),
		textReply("Done again."),
	],
	{ model: { id: "claude-sonnet-4-5", api: "anthropic-messages", provider: "anthropic" } },
);

let previous = "";
const showRequest: StreamFunction = (model, context, options = {}) => {
	// The body as sent, breakpoint markers included: with the manager none of them moves (the tail breakpoint is
	// the top-level `cache_control`, placed by the server), so each body starts with the previous one's bytes.
	const body = JSON.stringify(buildAnthropicRequest(model, context, options as AnthropicOptions));
	let shared = 0;
	while (shared < previous.length && body[shared] === previous[shared]) shared++;
	const breakpoints = (body.match(/"cache_control"/g) ?? []).length;
	console.log(
		`request: ${context.messages.length} messages, ${body.length} chars, ${shared} shared with the previous; ` +
			`hints ${JSON.stringify(options.cacheHints)}, ${breakpoints} breakpoints`,
	);
	previous = body;
	return scripted.stream(model, context, options);
};

const agent = new Agent({
	model: scripted.model,
	streamFn: showRequest,
	systemPrompt: "You are a careful code reader.",
	tools: [
		{
			name: "read_file",
			description: "Read a file",
			parameters: { type: "object", properties: { path: { type: "string" } }, required: ["path"] },
			execute: async (_id, args: { path: string }) => ({
				content: [{ type: "text", text: `(contents of ${args.path})` }],
			}),
		},
	],
	// One manager for the Agent's lifetime: the second prompt still extends the first one's cached prefix.
	contextManager: new AppendOnlyContextManager(),
});

await agent.prompt("Read the README and the package manifest.");
await agent.prompt("Now the entry point.");
