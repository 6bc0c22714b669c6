/**
 * The agent's tools, reached through MCP itself: an in-process MCP client linked to a
 * server built like the public one, so the model's calls run exactly the code MCP
 * clients run. The tool list (name, description, JSON Schema) is what the model sees.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { createMcpServer, type McpDependencies } from '../mcp/mcp-server.js';
import type { ToolDeclaration } from './llm-types.js';

export interface ToolOutcome {
  isError: boolean;
  /** The tool's text content (JSON for successful view and SQL tools). */
  text: string;
}

export interface Toolbox {
  declarations(): Promise<ToolDeclaration[]>;
  call(name: string, args: Record<string, unknown>): Promise<ToolOutcome>;
  close(): Promise<void>;
}

export async function createMcpToolbox(deps: McpDependencies): Promise<Toolbox> {
  const server = createMcpServer(deps);
  const client = new Client({ name: 'analytics-agent', version: '1.0.0' });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  await client.connect(clientSide);
  let cached: ToolDeclaration[] | undefined;
  return {
    async declarations() {
      cached ??= (await client.listTools()).tools.map((tool) => ({
        name: tool.name,
        description: tool.description ?? '',
        parameters: stripSchemaMeta(tool.inputSchema as Record<string, unknown>),
      }));
      return cached;
    },
    async call(name, args) {
      const result = await client.callTool({ name, arguments: args });
      const text = (result.content as Array<{ type: string; text?: string }>)
        .filter((c) => c.type === 'text')
        .map((c) => c.text ?? '')
        .join('\n');
      return { isError: result.isError === true, text };
    },
    async close() {
      await client.close();
      await server.close();
    },
  };
}

function stripSchemaMeta(schema: Record<string, unknown>): Record<string, unknown> {
  const { $schema: _ignored, ...rest } = schema;
  return rest;
}
