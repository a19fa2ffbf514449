import { describe, expect, it } from "vitest";
import { jsonPlaces } from "./json-places.js";

const TEXT = `{
  "a": [
    {"name": "x", "data": {"cidrs": ["10.0.0.0/8", "11.0.0.0/8"]}},
    7,
    "s"
  ],
  "a/b": {"~k": null},
  "dup": 1,
  "dup": {"z": true}
}`;

describe("jsonPlaces", () => {
  const places = jsonPlaces(TEXT);
  it("places object members at their key and array items at their value", () => {
    expect(places.place("/a")).toBe("2:3");
    expect(places.place("/a/0")).toBe("3:5");
    expect(places.place("/a/0/data/cidrs/1")).toBe("3:52");
    expect(places.place("/a/1")).toBe("4:5");
    expect(places.place("/a/2")).toBe("5:5");
  });
  it("reads escaped pointer segments and keeps the last of a repeated key", () => {
    expect(places.place("/a~1b/~0k")).toBe("7:11");
    expect(places.place("/dup/z")).toBe("9:11");
    expect(places.place("/dup")).toBe("9:3");
  });
  it("falls back to the nearest placed ancestor, then the start", () => {
    expect(places.place("/a/0/missing")).toBe("3:5");
    expect(places.place("/nothing")).toBe("1:1");
    expect(places.place("")).toBe("1:1");
  });
});
