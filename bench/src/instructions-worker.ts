/**
 * One process under callgrind (`instructions.ts` starts it): one library's W4 — a warm-up batch, then the
 * second and third batch a process ever runs, each between two marks callgrind acts on. `process.cpuUsage()`
 * (libuv's `uv_getrusage`) zeroes the counters, `process.memoryUsage.rss()` (`uv_resident_set_memory`)
 * dumps them; nothing else in the workers calls either, so each dump holds exactly one batch.
 */
import { parseArgs } from "node:util";
import { DRIVERS, type LibraryName } from "./libraries.js";
import { holdReplies, w4 } from "./workloads.js";

const { values } = parseArgs({
	options: { lib: { type: "string" }, calls: { type: "string", default: "0" } },
});
const load = DRIVERS[values.lib as LibraryName];
if (!load) throw new Error(`unknown library ${values.lib}`);
const driver = await load();
// W4's size: the number of tool calls in the reply, 0 for the workload's own eight.
const size = Number(values.calls);
holdReplies("W4", [size]);
await w4(driver, size);
for (let batch = 2; batch <= 3; batch++) {
	process.cpuUsage();
	await w4(driver, size);
	process.memoryUsage.rss();
}
