// The diff's generated requests as a list made on demand (productList): the same
// combinations in the same order as the product built in one go, and none built until
// asked for, so a diff its work bound stops early builds only what it decides.
import { describe, expect, it } from "vitest";
import { MAX_PRODUCT_VALUES, product, productList } from "./diff-requests.js";

/** Every item of a list made on demand, in order. */
function items<R>(list: { length: number; at(i: number): R | undefined }): (R | undefined)[] {
  return Array.from({ length: list.length }, (_, i) => list.at(i));
}

const SHAPES: { name: string; lists: string[][]; limit: number }[] = [
  { name: "three lists, all combinations", lists: [["p"], ["a", "b", "c"], ["x", "y"]], limit: 100 },
  {
    name: "cut at the limit",
    lists: [
      ["a", "b", "c"],
      ["x", "y", "z"],
      ["1", "2"],
    ],
    limit: 7,
  },
  {
    name: "exactly the limit",
    lists: [
      ["a", "b"],
      ["x", "y"],
    ],
    limit: 4,
  },
  { name: "an empty list", lists: [["a"], [], ["x"]], limit: 10 },
  { name: "no lists", lists: [], limit: 10 },
  {
    name: "so many lists that fewer values are picked",
    lists: Array.from({ length: 2_000 }, () => ["a", "b"]),
    limit: 20_000,
  },
];

describe("productList makes what product makes", () => {
  for (const { name, lists, limit } of SHAPES) {
    it(name, () => {
      const whole = product(lists, limit, (v) => v.join("."));
      const lazy = productList(lists, limit, (v) => v.join("."));
      expect(lazy.complete).toBe(whole.complete);
      expect(items(lazy.out)).toEqual(whole.out);
      expect(lazy.out.at(lazy.out.length)).toBeUndefined();
      expect(lazy.out.at(-1)).toBeUndefined();
    });
  }

  it("builds nothing until asked, and only what is asked", () => {
    let made = 0;
    const lists = Array.from({ length: 8 }, () => ["a", "b", "c", "d", "e", "f"]);
    const lazy = productList(lists, MAX_PRODUCT_VALUES, (v) => {
      made++;
      return v.join("");
    });
    expect(made).toBe(0);
    expect(lazy.out.length).toBe(Math.min(6 ** 8, Math.floor(MAX_PRODUCT_VALUES / 8)));
    expect(lazy.out.at(6 ** 3 + 2)).toBe("aaaabaac");
    expect(made).toBe(1);
  });
});
