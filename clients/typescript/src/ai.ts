/**
 * The memory tools, ready for the Vercel AI SDK's `tool()`: each has a description, an
 * `inputSchema` (JSON Schema, as the server declares it) and an `execute` that runs the
 * call on the server. No dependency on the AI SDK here; wrap them where it is installed:
 *
 *     import { jsonSchema, tool } from "ai";
 *     const defs = await memoryTools(memory);
 *     const tools = Object.fromEntries(Object.entries(defs).map(([name, d]) =>
 *       [name, tool({ ...d, inputSchema: jsonSchema(d.inputSchema) })]));
 *
 * `execute` answers the tool's result; a call the server refuses answers
 * `{ error: { code, message, fields? } }` for the model to read (it does not throw).
 */

import type { MemoryClient } from "./client.js";
import type { Json } from "./types.js";

export interface MemoryToolDefinition {
  description: string;
  inputSchema: Record<string, unknown>;
  execute: (input: Record<string, unknown>) => Promise<Json>;
}

export async function memoryTools(memory: MemoryClient): Promise<Record<string, MemoryToolDefinition>> {
  const schemas = await memory.tools();
  const out: Record<string, MemoryToolDefinition> = {};
  for (const { function: fn } of schemas) {
    out[fn.name] = {
      description: fn.description,
      inputSchema: fn.parameters,
      execute: async (input) => {
        const answer = await memory.callTool(fn.name, input);
        return answer.ok ? answer.result : { error: answer.error as unknown as Json };
      },
    };
  }
  return out;
}
