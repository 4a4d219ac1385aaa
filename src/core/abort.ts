/** Text for an abort reason (rule A5). */
export function abortReasonText(reason: unknown): string {
	if (typeof reason === "string" && reason.length > 0) return reason;
	if (reason instanceof Error && reason.name !== "AbortError" && reason.message.length > 0)
		return reason.message;
	return "Request was aborted";
}

/** The error message of a thrown value, for error results and error messages. */
export function errorText(error: unknown): string {
	if (error instanceof Error) return error.message || error.name;
	if (typeof error === "string") return error;
	try {
		return JSON.stringify(error) ?? String(error);
	} catch {
		return String(error);
	}
}
