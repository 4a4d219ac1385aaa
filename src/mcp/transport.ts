/**
 * A transport wrapper that keeps notifications ahead of the response that followed them on the wire.
 *
 * The SDK's `Protocol` runs notification handlers a microtask late but settles responses at once. When a
 * server's last progress reports and its result arrive in one chunk (a busy machine, a fast tool), the response
 * removes the call's progress handler first and the SDK drops those reports ("unknown token"); a
 * `tools/list_changed` sent during a call is likewise seen only after the call returned. Handing responses (and
 * the close that may follow them) on one macrotask later restores wire order.
 */
import type { Transport, TransportSendOptions } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { JSONRPCMessage, MessageExtraInfo } from "@modelcontextprotocol/sdk/types.js";

/** Wrap `inner` so every message reaches the client in the order the server sent it. */
export function inWireOrder(inner: Transport): Transport {
	const outer: Transport = {
		start() {
			inner.onmessage = (message: JSONRPCMessage, extra?: MessageExtraInfo) => {
				if (isResponse(message)) setImmediate(() => outer.onmessage?.(message, extra));
				else outer.onmessage?.(message, extra);
			};
			inner.onerror = (error) => outer.onerror?.(error);
			// After any response still being handed on, so a server's last answer is not lost to its exit.
			inner.onclose = () => setImmediate(() => outer.onclose?.());
			return inner.start();
		},
		send: (message: JSONRPCMessage, options?: TransportSendOptions) => inner.send(message, options),
		close: () => inner.close(),
		setProtocolVersion: (version: string) => inner.setProtocolVersion?.(version),
	};
	Object.defineProperty(outer, "sessionId", { get: () => inner.sessionId, enumerable: true });
	return outer;
}

function isResponse(message: JSONRPCMessage): boolean {
	return "id" in message && !("method" in message);
}
