/** `modulemeta`: a module's metadata, imports and definitions, for the modules a program can import. */
import type { Json } from "../engines/common/json.js";
import { defNative } from "./builtins-define.js";
import type { Native } from "./compile.js";
import { JqSyntaxError } from "./lexer.js";
import { BUILTIN_MODULES } from "./modules.js";
import { ModuleLoadError, type ModuleProvider } from "./module-provider.js";
import { parseModule } from "./parser.js";
import { copyObj, fail, isObject, setKey, type JObj } from "./values.js";

/**
 * jq 1.7.1's `modulemeta` (src/linker.c load_module_meta), over the built-in modules and those the
 * program's module provider finds: the `module` metadata object, then `deps` (each import's
 * metadata with `as`, `is_data`, `relpath`) and `defs` (`name/arity` of its definitions); null for
 * a module that does not parse.
 */
export function moduleMeta(name: Json, modules: ModuleProvider | null): Json {
  if (typeof name !== "string") return fail("modulemeta input module name must be a string");
  let found;
  try {
    found = modules?.find({ path: name, data: false, from: null, meta: null, forMeta: true });
  } catch (e) {
    if (e instanceof ModuleLoadError) return fail(e.message);
    throw e;
  }
  const src =
    found !== undefined && "source" in found
      ? found.source
      : Object.prototype.hasOwnProperty.call(BUILTIN_MODULES, name)
        ? BUILTIN_MODULES[name]
        : undefined;
  if (src === undefined) return fail(`module not found: ${name}`);
  let ast;
  try {
    ast = parseModule(src);
  } catch (e) {
    if (e instanceof JqSyntaxError || e instanceof RangeError) return null;
    throw e;
  }
  const out: JObj = ast.meta !== null && isObject(ast.meta) ? copyObj(ast.meta) : {};
  setKey(
    out,
    "deps",
    ast.directives.map((d) => {
      const dep: JObj = d.meta !== null && isObject(d.meta) ? copyObj(d.meta) : {};
      if (d.alias !== null) setKey(dep, "as", d.alias);
      setKey(dep, "is_data", d.isData);
      setKey(dep, "relpath", d.path);
      return dep;
    }),
  );
  const defs: string[] = [];
  for (const d of ast.defs) {
    const key = `${d.name}/${d.params.length}`;
    if (!defs.includes(key)) defs.push(key);
  }
  setKey(out, "defs", defs);
  return out;
}

/** The `modulemeta/0` native for a program compiled with these extra modules. */
export function moduleMetaNative(modules: ModuleProvider | null): Native {
  const fn = (i: Json): Json => moduleMeta(i, modules);
  return { gen: (i, _a, _e, emit) => emit(fn(i)), fn };
}

defNative("modulemeta", 0, moduleMetaNative(null));
