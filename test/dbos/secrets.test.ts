// SPEC E3 for durable runs on DBOS: a run whose provider quotes the key back, with credentials in the model's
// headers and base URL and a password in the database URL, leaves none of them in any table DBOS or capstan
// writes (workflow input and output, step outputs, the run's event rows) nor in the run's result.
import pg from "pg";
import { afterAll, beforeAll, expect, it } from "vitest";
import { type DbosWorker, launchDbosWorker, registerDbosAgent } from "../../src/dbos/index.js";
import type { DurableRunResult } from "../../src/durable/index.js";
import { closeServersAfterEach, serve } from "../providers/support/loopback.js";
import { testModel } from "../providers/support/models.js";
import { jsonResponse } from "../providers/support/replay-server.js";
import { user } from "../support/run.js";
import { createDatabase, describeWithPostgres } from "./support/postgres.js";

closeServersAfterEach();

const KEY = "plainSENTINELkey0123456";

describeWithPostgres("capstan/dbos: no secret reaches the database (SPEC E3)", (serverUrl) => {
	let database: Awaited<ReturnType<typeof createDatabase>>;
	let withPassword: string;
	let worker: DbosWorker | undefined;

	beforeAll(async () => {
		database = await createDatabase(serverUrl, "capstan_secrets");
		const url = new URL(database.url);
		// A password of our own when the server takes any (the test cluster trusts loopback); else its own.
		if (url.password === "") url.password = "pwSENTINEL99";
		withPassword = url.toString();
	});
	afterAll(async () => {
		await worker?.shutdown();
		await database?.drop();
	});

	it("a failed run journals the masked error only", async () => {
		const password = decodeURIComponent(new URL(withPassword).password);
		const server = await serve(
			jsonResponse(401, {
				error: { message: `Incorrect API key provided: ${KEY}; gateway token hSENTINELheader77` },
			}),
		);
		const agent = registerDbosAgent({
			name: "secrets",
			agent: () => ({
				model: testModel("openai-completions", `${server.baseUrl}?x-functions-code=qSENTINELcode55`, {
					headers: { "x-gateway-token": "hSENTINELheader77" },
				}),
				config: { streamOptions: { apiKey: KEY, maxRetries: 0 } },
			}),
		});
		worker = await launchDbosWorker({
			applicationName: "capstan-secrets-test",
			databaseUrl: withPassword,
			executorId: "secrets",
		});
		const result: DurableRunResult = await agent.run({ prompts: [user("hi")] });
		expect(result.outcome).toMatchObject({ type: "error" });
		expect(JSON.stringify(result)).toContain("Incorrect API key provided: [redacted]");
		const client = new pg.Client({ connectionString: withPassword });
		await client.connect();
		const dumped: string[] = [];
		try {
			const { rows: tables } = await client.query<{ schema: string; name: string }>(
				"SELECT table_schema AS schema, table_name AS name FROM information_schema.tables WHERE table_schema IN ('dbos', 'capstan')",
			);
			expect(tables.map((t) => t.name)).toEqual(
				expect.arrayContaining(["workflow_status", "operation_outputs"]),
			);
			for (const { schema, name } of tables) {
				const { rows } = await client.query(`SELECT * FROM "${schema}"."${name}"`);
				dumped.push(`${schema}.${name}: ${JSON.stringify(rows)}`);
			}
		} finally {
			await client.end();
		}
		const all = dumped.join("\n");
		expect(all).toContain("Incorrect API key provided: [redacted]");
		for (const secret of [KEY, "hSENTINELheader77", "qSENTINELcode55", password]) {
			expect(all).not.toContain(secret);
			expect(JSON.stringify(result)).not.toContain(secret);
		}
	});
});
