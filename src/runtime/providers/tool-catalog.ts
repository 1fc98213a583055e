/**
 * The MCP tools offered to the model (contract §14.1): each tool of each MCP server the agent declares,
 * as `<serverId>__<toolName>` with characters outside `[A-Za-z0-9_-]` replaced by `_`, filtered by the
 * agent's `tools` allowlist (globs over those names). Read from the supervisors at every triage, so a
 * restarted server's new tool list is what the next triage sees.
 */
import type { McpToolInfo } from '../mcp/mcp-types.js';
import type { LlmToolSpec } from './llm-types.js';
import { SUBMIT_TRIAGE } from './submit-triage.js';
import { isRecord } from './wire-common.js';

/** Both vendors limit tool names to 64 characters of `[A-Za-z0-9_-]`. */
const MAX_NAME_CHARS = 64;
const MAX_DESCRIPTION_CHARS = 1024;

export interface OfferedTool {
  /** The name the model sees and calls. */
  name: string;
  serverId: string;
  /** The MCP tool's own name. */
  tool: string;
  spec: LlmToolSpec;
}

/** What the catalog reads: each declared server's id and its current tool list. */
export interface ToolSource {
  readonly id: string;
  tools(): McpToolInfo[];
}

export function offeredToolName(serverId: string, tool: string): string {
  return `${serverId}__${tool}`.replace(/[^A-Za-z0-9_-]/g, '_').slice(0, MAX_NAME_CHARS);
}

/** `*` any run of characters, `?` one character; everything else literal. Whole-name match. */
export function globMatch(glob: string, name: string): boolean {
  const pattern = glob.replace(/[.+^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*').replace(/\?/g, '.');
  return new RegExp(`^${pattern}$`).test(name);
}

export interface ToolCatalog {
  /** The tools to offer now; later duplicates of a name (after replacing and clipping) are left out. */
  list(): OfferedTool[];
}

export function createToolCatalog(sources: readonly ToolSource[], allow: readonly string[] | undefined): ToolCatalog {
  return {
    list() {
      const offered = new Map<string, OfferedTool>();
      for (const source of sources) {
        for (const info of source.tools()) {
          const name = offeredToolName(source.id, info.name);
          if (name === SUBMIT_TRIAGE || offered.has(name)) continue;
          if (allow && !allow.some((glob) => globMatch(glob, name))) continue;
          offered.set(name, { name, serverId: source.id, tool: info.name, spec: specOf(name, info) });
        }
      }
      return [...offered.values()];
    },
  };
}

function specOf(name: string, info: McpToolInfo): LlmToolSpec {
  const description = (info.description ?? `MCP tool ${info.name}`).slice(0, MAX_DESCRIPTION_CHARS);
  const schema = isRecord(info.inputSchema) && info.inputSchema.type === 'object'
    ? info.inputSchema
    : { type: 'object', properties: {} };
  return { name, description, inputSchema: schema };
}
