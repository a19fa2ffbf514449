/** The C locale's day names, Sunday first (strftime's `%A`; `%a` is the first three letters). */
export const DAY_NAMES = ["Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"];

/** The C locale's month names, January first (strftime's `%B`; `%b` is the first three letters). */
export const MONTH_NAMES = [
  "January",
  "February",
  "March",
  "April",
  "May",
  "June",
  "July",
  "August",
  "September",
  "October",
  "November",
  "December",
];
