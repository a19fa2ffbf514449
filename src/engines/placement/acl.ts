import { ACL_GROUP_RE, ACL_USER_RE } from "./names.js";
import type { Acl, AclData } from "./types.js";

/**
 * The validator's first ACL check: whitespace-separated fields of the trimmed
 * text; more than two is an error. Returns the error text or null.
 */
export function checkAclFields(acl: string): string | null {
  const trimmed = acl.trim();
  if (trimmed === "" || trimmed === "*") return null;
  const fields = trimmed.split(/\s+/);
  return fields.length > 2 ? `multiple spaces found in ACL: '${acl}'` : null;
}

/**
 * Parses an ACL the way the scheduler builds it: split on single spaces before
 * trimming (so two spaces are an error), users then groups, `*` for everybody,
 * names that fail the ACL patterns silently dropped.
 */
export function parseAcl(acl: string): { ok: true; value: AclData } | { ok: false; error: string } {
  const out: AclData = { all: false, users: [], groups: [] };
  if (acl === "") return { ok: true, value: out };
  const fields = acl.split(" ");
  if (fields.length > 2) return { ok: false, error: `multiple spaces found in ACL: '${acl}'` };
  out.all = acl.trim() === "*";
  const users = fields[0].split(",");
  if (users.length === 1 && users[0] === "*") {
    out.all = true;
  } else {
    for (const u of users) if (u !== "" && ACL_USER_RE.test(u) && !out.users.includes(u)) out.users.push(u);
  }
  if (fields.length === 2 && !out.all) {
    const groups = fields[1].split(",");
    if (groups.length === 1 && groups[0] === "*") {
      out.all = true;
      out.users = [];
    } else {
      for (const g of groups)
        if (g !== "" && ACL_GROUP_RE.test(g) && !out.groups.includes(g)) out.groups.push(g);
    }
  }
  if (out.all) out.groups = [];
  return { ok: true, value: out };
}

/** Rebuilds the set form of an ACL once at load time. */
export function loadAcl(data: AclData): Acl {
  return { all: data.all, users: new Set(data.users), groups: new Set(data.groups) };
}

/** One ACL's verdict for a user and their groups (case-sensitive, like the scheduler). */
export function aclAllows(acl: Acl, user: string, groups: readonly string[]): boolean {
  if (acl.all) return true;
  if (acl.users.size > 0 && acl.users.has(user)) return true;
  if (acl.groups.size > 0) for (const g of groups) if (acl.groups.has(g)) return true;
  return false;
}
