// A stdio MCP server with the fixtures the official conformance suite
// (@modelcontextprotocol/conformance) asks of a server under test: its tools
// `test_*`, resources `test://*`, prompts `test_*` and completion, written to
// the suite's scenario descriptions on the TypeScript SDK's low-level Server.
// The gateway is put in front of it, and the suite is run against the
// gateway: what passes here passes through the gateway's proxying.
//
// Usage: node conformance_server.mjs

import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import {
  CallToolRequestSchema,
  CompleteRequestSchema,
  GetPromptRequestSchema,
  ListPromptsRequestSchema,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  ListToolsRequestSchema,
  ReadResourceRequestSchema,
  SetLevelRequestSchema,
  SubscribeRequestSchema,
  UnsubscribeRequestSchema,
} from "@modelcontextprotocol/sdk/types.js";

// A 1x1 PNG, and a WAV with no samples: the smallest valid files of each kind.
const PNG =
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==";
const WAV = "UklGRiQAAABXQVZFZm10IBAAAAABAAEAQB8AAEAfAAABAAgAZGF0YQAAAAA=";

const server = new Server(
  { name: "conformance-fixtures", version: "1.0.0" },
  {
    capabilities: {
      tools: {},
      resources: { subscribe: true },
      prompts: {},
      completions: {},
      logging: {},
    },
  },
);

const noArguments = { type: "object", properties: {} };
const stringArgument = (name, description) => ({
  type: "object",
  properties: { [name]: { type: "string", description } },
  required: [name],
});

const tools = [
  ["test_simple_text", "Returns simple text", noArguments],
  ["test_image_content", "Returns an image", noArguments],
  ["test_audio_content", "Returns audio", noArguments],
  ["test_embedded_resource", "Returns an embedded resource", noArguments],
  ["test_multiple_content_types", "Returns text, an image and a resource", noArguments],
  ["test_tool_with_logging", "Logs three messages while it runs", noArguments],
  ["test_tool_with_progress", "Reports progress while it runs", noArguments],
  ["test_error_handling", "Always fails", noArguments],
  ["test_sampling", "Asks the client's model", stringArgument("prompt", "The prompt")],
  ["test_elicitation", "Asks the user", stringArgument("message", "The question")],
  ["test_elicitation_sep1034_defaults", "Asks with defaults", noArguments],
  ["test_elicitation_sep1330_enums", "Asks with every kind of enum", noArguments],
  [
    "json_schema_2020_12_tool",
    "Tool with JSON Schema 2020-12 features",
    {
      $schema: "https://json-schema.org/draft/2020-12/schema",
      type: "object",
      $defs: {
        address: {
          type: "object",
          properties: { street: { type: "string" }, city: { type: "string" } },
        },
      },
      properties: {
        name: { type: "string" },
        address: { $ref: "#/$defs/address" },
      },
      additionalProperties: false,
    },
  ],
].map(([name, description, inputSchema]) => ({ name, description, inputSchema }));

server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools }));

const text = (value) => ({ type: "text", text: value });
const pause = () => new Promise((resolve) => setTimeout(resolve, 50));

server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
  const args = request.params.arguments ?? {};
  switch (request.params.name) {
    case "test_simple_text":
      return { content: [text("This is a simple text response for testing.")] };
    case "test_image_content":
      return { content: [{ type: "image", data: PNG, mimeType: "image/png" }] };
    case "test_audio_content":
      return { content: [{ type: "audio", data: WAV, mimeType: "audio/wav" }] };
    case "test_embedded_resource":
      return {
        content: [
          {
            type: "resource",
            resource: {
              uri: "test://embedded-resource",
              mimeType: "text/plain",
              text: "This is an embedded resource content.",
            },
          },
        ],
      };
    case "test_multiple_content_types":
      return {
        content: [
          text("Multiple content types test:"),
          { type: "image", data: PNG, mimeType: "image/png" },
          {
            type: "resource",
            resource: {
              uri: "test://mixed-content-resource",
              mimeType: "application/json",
              text: JSON.stringify({ test: "data", value: 123 }),
            },
          },
        ],
      };
    case "test_tool_with_logging":
      for (const [index, message] of [
        "Tool execution started",
        "Tool processing data",
        "Tool execution completed",
      ].entries()) {
        if (index > 0) await pause();
        await extra.sendNotification({
          method: "notifications/message",
          params: { level: "info", data: message },
        });
      }
      return { content: [text("Tool with logging executed successfully")] };
    case "test_tool_with_progress": {
      const token = request.params._meta?.progressToken;
      for (const [index, progress] of [0, 50, 100].entries()) {
        if (index > 0) await pause();
        if (token !== undefined) {
          await extra.sendNotification({
            method: "notifications/progress",
            params: { progressToken: token, progress, total: 100 },
          });
        }
      }
      return { content: [text("Tool with progress executed successfully")] };
    }
    case "test_error_handling":
      return {
        isError: true,
        content: [text("This tool intentionally returns an error for testing")],
      };
    case "test_sampling": {
      const answer = await server.createMessage({
        messages: [{ role: "user", content: text(args.prompt) }],
        maxTokens: 100,
      });
      const said = answer.content?.type === "text" ? answer.content.text : JSON.stringify(answer.content);
      return { content: [text(`LLM response: ${said}`)] };
    }
    case "test_elicitation": {
      const answer = await server.elicitInput({
        message: args.message,
        requestedSchema: {
          type: "object",
          properties: {
            username: { type: "string", description: "User's response" },
            email: { type: "string", description: "User's email address" },
          },
          required: ["username", "email"],
        },
      });
      return {
        content: [
          text(`User response: action=${answer.action}, content=${JSON.stringify(answer.content ?? {})}`),
        ],
      };
    }
    case "test_elicitation_sep1034_defaults": {
      const answer = await server.elicitInput({
        message: "Please review and update the form fields with defaults",
        requestedSchema: {
          type: "object",
          properties: {
            name: { type: "string", description: "User name", default: "John Doe" },
            age: { type: "integer", description: "User age", default: 30 },
            score: { type: "number", description: "User score", default: 95.5 },
            status: {
              type: "string",
              description: "User status",
              enum: ["active", "inactive", "pending"],
              default: "active",
            },
            verified: { type: "boolean", description: "Verification status", default: true },
          },
        },
      });
      return {
        content: [
          text(`Elicitation completed: action=${answer.action}, content=${JSON.stringify(answer.content ?? {})}`),
        ],
      };
    }
    case "test_elicitation_sep1330_enums": {
      const answer = await server.elicitInput({
        message: "Please select options from the enum fields",
        requestedSchema: {
          type: "object",
          properties: {
            untitledSingle: {
              type: "string",
              description: "Select one option",
              enum: ["option1", "option2", "option3"],
            },
            titledSingle: {
              type: "string",
              description: "Select one option with titles",
              oneOf: [
                { const: "value1", title: "First Option" },
                { const: "value2", title: "Second Option" },
                { const: "value3", title: "Third Option" },
              ],
            },
            legacyEnum: {
              type: "string",
              description: "Select one option (legacy)",
              enum: ["opt1", "opt2", "opt3"],
              enumNames: ["Option One", "Option Two", "Option Three"],
            },
            untitledMulti: {
              type: "array",
              description: "Select multiple options",
              minItems: 1,
              maxItems: 3,
              items: { type: "string", enum: ["option1", "option2", "option3"] },
            },
            titledMulti: {
              type: "array",
              description: "Select multiple options with titles",
              minItems: 1,
              maxItems: 3,
              items: {
                anyOf: [
                  { const: "value1", title: "First Choice" },
                  { const: "value2", title: "Second Choice" },
                  { const: "value3", title: "Third Choice" },
                ],
              },
            },
          },
        },
      });
      return {
        content: [
          text(`Elicitation completed: action=${answer.action}, content=${JSON.stringify(answer.content ?? {})}`),
        ],
      };
    }
    default:
      return { isError: true, content: [text(`Unknown tool: ${request.params.name}`)] };
  }
});

const resources = [
  {
    uri: "test://static-text",
    name: "static-text",
    description: "A static text resource",
    mimeType: "text/plain",
  },
  {
    uri: "test://static-binary",
    name: "static-binary",
    description: "A static binary resource (a PNG)",
    mimeType: "image/png",
  },
  {
    uri: "test://watched-resource",
    name: "watched-resource",
    description: "A resource to subscribe to",
    mimeType: "text/plain",
  },
];

server.setRequestHandler(ListResourcesRequestSchema, async () => ({ resources }));
server.setRequestHandler(ListResourceTemplatesRequestSchema, async () => ({
  resourceTemplates: [
    {
      uriTemplate: "test://template/{id}/data",
      name: "template-data",
      description: "Data for an id",
      mimeType: "application/json",
    },
  ],
}));

server.setRequestHandler(ReadResourceRequestSchema, async (request) => {
  const uri = request.params.uri;
  if (uri === "test://static-text") {
    return {
      contents: [{ uri, mimeType: "text/plain", text: "This is the content of the static text resource." }],
    };
  }
  if (uri === "test://static-binary") {
    return { contents: [{ uri, mimeType: "image/png", blob: PNG }] };
  }
  if (uri === "test://watched-resource") {
    return { contents: [{ uri, mimeType: "text/plain", text: "Watched resource content." }] };
  }
  const match = /^test:\/\/template\/([^/]+)\/data$/.exec(uri);
  if (match) {
    const id = match[1];
    return {
      contents: [
        {
          uri,
          mimeType: "application/json",
          text: JSON.stringify({ id, templateTest: true, data: `Data for ID: ${id}` }),
        },
      ],
    };
  }
  throw new Error(`Resource not found: ${uri}`);
});

const subscriptions = new Set();
server.setRequestHandler(SubscribeRequestSchema, async (request) => {
  subscriptions.add(request.params.uri);
  return {};
});
server.setRequestHandler(UnsubscribeRequestSchema, async (request) => {
  subscriptions.delete(request.params.uri);
  return {};
});

const prompts = [
  { name: "test_simple_prompt", description: "A prompt without arguments" },
  {
    name: "test_prompt_with_arguments",
    description: "A prompt with two arguments",
    arguments: [
      { name: "arg1", description: "First test argument", required: true },
      { name: "arg2", description: "Second test argument", required: true },
    ],
  },
  {
    name: "test_prompt_with_embedded_resource",
    description: "A prompt embedding a resource",
    arguments: [{ name: "resourceUri", description: "URI of the resource to embed", required: true }],
  },
  { name: "test_prompt_with_image", description: "A prompt with an image" },
];

server.setRequestHandler(ListPromptsRequestSchema, async () => ({ prompts }));
server.setRequestHandler(GetPromptRequestSchema, async (request) => {
  const args = request.params.arguments ?? {};
  switch (request.params.name) {
    case "test_simple_prompt":
      return { messages: [{ role: "user", content: text("This is a simple prompt for testing.") }] };
    case "test_prompt_with_arguments":
      return {
        messages: [
          { role: "user", content: text(`Prompt with arguments: arg1='${args.arg1}', arg2='${args.arg2}'`) },
        ],
      };
    case "test_prompt_with_embedded_resource":
      return {
        messages: [
          {
            role: "user",
            content: {
              type: "resource",
              resource: {
                uri: args.resourceUri,
                mimeType: "text/plain",
                text: "Embedded resource content for testing.",
              },
            },
          },
          { role: "user", content: text("Please process the embedded resource above.") },
        ],
      };
    case "test_prompt_with_image":
      return {
        messages: [
          { role: "user", content: { type: "image", data: PNG, mimeType: "image/png" } },
          { role: "user", content: text("Please analyze the image above.") },
        ],
      };
    default:
      throw new Error(`Unknown prompt: ${request.params.name}`);
  }
});

server.setRequestHandler(CompleteRequestSchema, async (request) => {
  const partial = request.params.argument?.value ?? "";
  const values = ["paris", "park", "party"].filter((value) => value.startsWith(partial));
  return { completion: { values, total: values.length, hasMore: false } };
});

server.setRequestHandler(SetLevelRequestSchema, async () => ({}));

await server.connect(new StdioServerTransport());
