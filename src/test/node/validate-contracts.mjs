// Validates contract files against docs/contract.schema.json with Ajv (JSON Schema 2020-12, strict
// mode), reading the YAML with `yaml` (eemeli/yaml, the parser yaml-language-server uses): a second,
// independent validator for ContractSchemaTest, with ECMAScript regular expressions as editors run them.
//   node validate-contracts.mjs SCHEMA FILE...   prints one JSON line per file: {file, valid, errors}
// Both packages come with the pinned SDK (see package-lock.json).
import { readFileSync } from "node:fs";
import Ajv2020 from "ajv/dist/2020.js";
import { parse } from "yaml";

const [schemaFile, ...files] = process.argv.slice(2);
const schema = JSON.parse(readFileSync(schemaFile, "utf8"));
// strict: unknown keywords are errors, except the editor annotations the schema documents.
const ajv = new Ajv2020({ strict: true, strictTypes: false, allErrors: true });
for (const keyword of ["errorMessage", "patternErrorMessage", "requiredMessage"]) {
  ajv.addKeyword({ keyword, schemaType: "string" });
}
const validate = ajv.compile(schema);
for (const file of files) {
  const contract = parse(readFileSync(file, "utf8"));
  const valid = validate(contract);
  const errors = (validate.errors ?? []).map((e) => `${e.instancePath} ${e.keyword}: ${e.message}`);
  console.log(JSON.stringify({ file, valid, errors }));
}
