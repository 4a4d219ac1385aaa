/**
 * The builder every provider call writes into (one per stream, across retries). On top of the core builder
 * it guards what leaves the provider layer, whoever finishes the reply (the runner, a decoder mapping a stop
 * reason): a failure's message is redacted (the key in use and anything key-shaped, see `redact.ts`), and a
 * reply the server accepted but never reported usage for finishes with `usage.unknown` instead of zeros
 * that read as a free call.
 */
import { AssistantMessageBuilder } from "../../core/assistant-builder.js";
import type { AssistantMessage, ErrorKind, Usage } from "../../core/messages.js";
import { redactSecrets } from "./redact.js";

/** The core builder with redacted failures and unknown-usage marking; see the module comment. */
export class ProviderMessageBuilder extends AssistantMessageBuilder {
	/** The secrets of this call (the resolved key), set once the runner knows it. */
	secrets: readonly (string | undefined)[] = [];
	/** A server answered 2xx: from here on, tokens may have been billed. */
	private accepted = false;
	private usageReported = false;

	/** The server accepted the request (2xx headers): a reply without usage is now unknown, not free. */
	markAccepted(): void {
		this.accepted = true;
	}

	override setUsage(usage: Partial<Usage>): void {
		this.usageReported = true;
		super.setUsage(usage);
	}

	override done(reason: "stop" | "toolUse" | "length"): AssistantMessage {
		this.markUnknownUsage();
		return super.done(reason);
	}

	override fail(reason: "error" | "aborted", errorMessage: string, errorKind?: ErrorKind): AssistantMessage {
		this.markUnknownUsage();
		return super.fail(reason, redactSecrets(errorMessage, this.secrets), errorKind);
	}

	private markUnknownUsage(): void {
		if (!this.accepted || this.usageReported) return;
		const { usage } = this.message;
		super.setUsage({ unknown: true, cost: { ...usage.cost, unknown: true } });
	}
}
