import { describe, expect, it } from "vitest";
import { UsageError } from "./args.js";
import { formatTable, listTime, selectFields, type ListField } from "./list-fields.js";

interface Row {
  id: number;
  name: string;
  state: string;
}

const FIELDS: ListField<Row>[] = [
  { name: "id", title: "ID", doc: "", numeric: true, value: (r) => String(r.id) },
  { name: "name", title: "Name", doc: "", value: (r) => r.name },
  { name: "status", title: "Status", doc: "", value: (r) => r.state },
];
const DEFAULT = ["id", "status"];
const rows: Row[] = [
  { id: 9, name: "a", state: "running" },
  { id: 123, name: "long-name", state: "queued" },
];
const names = (spec: string | undefined) => selectFields(FIELDS, DEFAULT, spec).map((f) => f.name);

describe("-o as Ganeti's list commands read it", () => {
  it("keeps the default fields without -o, replaces them with a list, adds to them with +", () => {
    expect(names(undefined)).toEqual(["id", "status"]);
    expect(names("name,id")).toEqual(["name", "id"]);
    expect(names("+name")).toEqual(["id", "status", "name"]);
  });

  it("refuses an unknown field, naming it and the known ones", () => {
    expect(() => names("id,stat")).toThrow(UsageError);
    expect(() => names("id,stat")).toThrow("unknown field `stat` (fields: id, name, status)");
  });
});

describe("tables as gnt-job prints them", () => {
  it("pads columns to the widest cell, aligns numbers right, leaves the last text column unpadded", () => {
    expect(
      formatTable(selectFields(FIELDS, DEFAULT, "id,name,status"), rows, {
        header: true,
        separator: undefined,
      }),
    ).toBe([" ID Name      Status", "  9 a         running", "123 long-name queued", ""].join("\n"));
  });

  it("pads a last numeric column, drops the header with --no-headers, joins by --separator unpadded", () => {
    const fields = selectFields(FIELDS, DEFAULT, "name,id");
    expect(formatTable(fields, rows, { header: false, separator: undefined })).toBe(
      "a           9\nlong-name 123\n",
    );
    expect(formatTable(fields, rows, { header: true, separator: "|" })).toBe("Name|ID\na|9\nlong-name|123\n");
  });

  it("prints times as %F %T in local time, and - for none", () => {
    const t = new Date(2026, 10, 27, 5, 4, 3);
    expect(listTime(t.toISOString())).toBe("2026-11-27 05:04:03");
    expect(listTime(null)).toBe("-");
  });
});
