import { Hono } from "hono";
import * as z from "zod";
import type { AppEnv } from "../../env.js";
import { ApiError } from "../errors.js";
import { registerOperation } from "../openapi.js";
import { isPolicySchemaName, noSchemaMessage, policySchema, POLICY_SCHEMA_NAMES } from "../policy-schemas.js";

/** `GET /v1/schemas/{name}.json`: the JSON Schema of a policy format or of policy test files, for editors. */
export const schemaRoutes = new Hono<AppEnv>().get("/v1/schemas/:file", (c) => {
  const file = c.req.param("file");
  const name = file.endsWith(".json") ? file.slice(0, -5) : file;
  if (!file.endsWith(".json") || !isPolicySchemaName(name))
    throw new ApiError("not_found", noSchemaMessage(name));
  c.header("Cache-Control", "public, max-age=300");
  return c.json(policySchema(name));
});

registerOperation({
  operationId: "getPolicySchema",
  method: "get",
  path: "/v1/schemas/{name}.json",
  summary: `The JSON Schema (2020-12) of a policy file or of policy test files, for editors: ${POLICY_SCHEMA_NAMES.join(", ")} (pool.conf is HTCondor configuration syntax and has none)`,
  tag: "system",
  auth: "none",
  response: z
    .looseObject({ $schema: z.literal("https://json-schema.org/draft/2020-12/schema") })
    .describe("a JSON Schema"),
  errors: ["not_found"],
});
