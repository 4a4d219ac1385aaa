/**
 * The floor: what any agent loop must at least do, with no library at all. A bare `for await` over the same
 * fake source that appends text, collects each call's argument text, parses it once with `JSON.parse`, runs
 * the calls with `Promise.all` and pushes everything to a history array.
 */
import type { FakeSource } from "./source.js";
import type { BenchTool } from "./tools.js";

interface FloorCall {
	id: string;
	name: string;
	json: string;
}

/** Run the conversation to its final text reply; `onTextDelta` sees every text delta. */
export async function runFloor(source: FakeSource, tools: readonly BenchTool[], onTextDelta?: () => void) {
	const byName = new Map(tools.map((t) => [t.name, t]));
	const history: unknown[] = [{ role: "user", content: "go" }];
	for (;;) {
		let text = "";
		const calls: FloorCall[] = [];
		let open: FloorCall | undefined;
		for await (const event of source.next()) {
			if (event.type === "text-delta") {
				text += event.delta;
				onTextDelta?.();
			} else if (event.type === "tool-start") open = { id: event.id, name: event.name, json: "" };
			else if (event.type === "tool-delta" && open) open.json += event.delta;
			else if (event.type === "tool-end" && open) {
				calls.push(open);
				open = undefined;
			}
		}
		const parsed = calls.map((c) => ({ id: c.id, name: c.name, args: JSON.parse(c.json) }));
		history.push({ role: "assistant", text, calls: parsed });
		if (parsed.length === 0) return history;
		const results = await Promise.all(parsed.map((c) => byName.get(c.name)!.run(c.args)));
		for (const [i, c] of parsed.entries()) history.push({ role: "tool", id: c.id, text: results[i] });
	}
}
