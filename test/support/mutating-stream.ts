/**
 * A stream function in the style of many hand-written and third-party providers (pi-ai's among them): it keeps
 * ONE assistant message object and mutates it in place as deltas arrive, and every event's `partial` is that
 * same live object. It is a foreign async iterable (not capstan's EventStream), so the loop gets no promise
 * about snapshots from it. Used to pin SPEC L5 (the loop owns what it emits and commits).
 */
import type {
	AssistantMessage,
	AssistantMessageEvent,
	AssistantMessageEventStream,
	Context,
	Model,
	StreamFunction,
	StreamOptions,
	ToolCall,
} from "../../src/index.js";

/**
 * Wrap a stream function so its events are replayed over one live message mutated in place: text grows on
 * the same block object, tool-call `arguments` grow on the same object, and `done` hands out the live object.
 */
export function mutateInPlace(source: StreamFunction): StreamFunction {
	return (model: Model, context: Context, options?: StreamOptions) => {
		const upstream = source(model, context, options);
		// Push-based like those providers: the upstream is drained eagerly, whether or not anyone reads, so a
		// provider that ignores the abort keeps mutating the live message after the loop stopped reading.
		const queue: (AssistantMessageEvent | { failed: unknown } | { ended: true })[] = [];
		let wake: (() => void) | undefined;
		const put = (item: (typeof queue)[number]) => {
			queue.push(item);
			wake?.();
		};
		let live: AssistantMessage | undefined;
		void (async () => {
			try {
				for await (const event of upstream) {
					if (event.type === "done" || event.type === "error") {
						live = overwrite(live, event.type === "done" ? event.message : event.error);
						put(event.type === "done" ? { ...event, message: live } : { ...event, error: live });
						return;
					}
					live ??= { ...event.partial, content: [] };
					put(mutate(live, event));
				}
				put({ ended: true });
			} catch (error) {
				put({ failed: error });
			}
		})();
		const foreign = {
			async *[Symbol.asyncIterator](): AsyncGenerator<AssistantMessageEvent> {
				for (;;) {
					const item = queue.shift();
					if (!item) {
						await new Promise<void>((resolve) => (wake = resolve));
						continue;
					}
					if ("failed" in item) throw item.failed;
					if ("ended" in item) return;
					yield item;
					if (item.type === "done" || item.type === "error") return;
				}
			},
		};
		// A foreign iterable, as pi-ai's own stream class is: the type says EventStream, the loop takes any.
		return foreign as unknown as AssistantMessageEventStream;
	};
}

/** Bring `live` to `final` in place (top-level fields and content), as a mutating provider's done does. */
function overwrite(live: AssistantMessage | undefined, final: AssistantMessage): AssistantMessage {
	if (!live) return { ...final, content: [...final.content] };
	const content = live.content;
	content.length = 0;
	content.push(...final.content);
	Object.assign(live, final, { content });
	return live;
}

function mutate(live: AssistantMessage, event: AssistantMessageEvent): AssistantMessageEvent {
	if (event.type === "start" || event.type === "done" || event.type === "error")
		return { ...event, partial: live } as AssistantMessageEvent;
	const i = event.contentIndex;
	const source = event.partial.content[i];
	switch (event.type) {
		case "text_start":
		case "thinking_start":
		case "toolcall_start":
			// A block appears: one new object, which is mutated from now on.
			live.content[i] =
				source?.type === "toolCall"
					? { ...source, arguments: {} }
					: ({ ...source } as (typeof live.content)[number]);
			break;
		case "text_delta": {
			const block = live.content[i];
			if (block?.type === "text") block.text += event.delta;
			break;
		}
		case "thinking_delta": {
			const block = live.content[i];
			if (block?.type === "thinking") block.thinking += event.delta;
			break;
		}
		case "toolcall_delta": {
			const block = live.content[i] as ToolCall;
			for (const key of Object.keys(block.arguments)) delete block.arguments[key];
			Object.assign(block.arguments, event.arguments);
			return { ...event, arguments: block.arguments, partial: live };
		}
		case "toolcall_end": {
			const block = live.content[i] as ToolCall;
			for (const key of Object.keys(block.arguments)) delete block.arguments[key];
			const { arguments: args, ...rest } = event.toolCall;
			Object.assign(block, rest);
			Object.assign(block.arguments, args);
			return { ...event, toolCall: block, partial: live };
		}
		default:
			if (source) Object.assign(live.content[i] ?? {}, source);
	}
	// Blocks that changed without an event of their own (signatures, provider blocks): sync them in place.
	for (let j = 0; j < event.partial.content.length; j++)
		if (live.content[j] === undefined)
			live.content[j] = { ...event.partial.content[j] } as (typeof live.content)[number];
	return { ...event, partial: live } as AssistantMessageEvent;
}
