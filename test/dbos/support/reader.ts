// A third process that only reads a run's events (no DBOS launch): one JSON line per event on stdout.
//   CAPSTAN_DB_URL, CAPSTAN_RUN
import { DbosAgentRuns } from "../../../src/dbos/index.js";

const runs = await DbosAgentRuns.connect({
	databaseUrl: process.env.CAPSTAN_DB_URL ?? "",
	applicationName: "capstan-kill-test",
});
for await (const { seq, delta, event } of runs.events(process.env.CAPSTAN_RUN ?? "", { pollMs: 50 })) {
	const detail = event.type === "tool_execution_end" ? event.toolCallId : undefined;
	process.stdout.write(`${JSON.stringify({ seq, delta, type: event.type, detail })}\n`);
}
await runs.close();
