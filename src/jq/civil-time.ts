/**
 * Proleptic Gregorian calendar arithmetic on day numbers (days since 1970-01-01), for any year a
 * C `int` holds: JavaScript's Date stops at year 275760 and reads years 0-99 as 1900-1999.
 */

const DAYS_PER_ERA = 146097; // 400 years
const EPOCH_SHIFT = 719468; // days from 0000-03-01 to 1970-01-01

/** The day number of a date; the month (0-11) may lie outside its range and carries into the year. */
export function daysFromCivil(year: number, month0: number, day: number): number {
  const y0 = year + Math.floor(month0 / 12);
  const m = month0 - 12 * Math.floor(month0 / 12); // 0 = January
  // years start in March here, so the leap day is the last day of the year
  const y = m < 2 ? y0 - 1 : y0;
  const era = Math.floor(y / 400);
  const yoe = y - era * 400;
  const mp = m < 2 ? m + 10 : m - 2;
  const doy = Math.floor((153 * mp + 2) / 5) + day - 1;
  const doe = yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy;
  return era * DAYS_PER_ERA + doe - EPOCH_SHIFT;
}

/** The date of a day number: [year, month 0-11, day of month]. */
export function civilFromDays(days: number): [number, number, number] {
  const z = days + EPOCH_SHIFT;
  const era = Math.floor(z / DAYS_PER_ERA);
  const doe = z - era * DAYS_PER_ERA;
  const yoe = Math.floor(
    (doe - Math.floor(doe / 1460) + Math.floor(doe / 36524) - Math.floor(doe / 146096)) / 365,
  );
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100));
  const mp = Math.floor((5 * doy + 2) / 153);
  const day = doy - Math.floor((153 * mp + 2) / 5) + 1;
  const month0 = mp < 10 ? mp + 2 : mp - 10;
  return [yoe + era * 400 + (month0 < 2 ? 1 : 0), month0, day];
}

/** Day of the week of a day number, 0 = Sunday (1970-01-01 was a Thursday). */
export function weekday(days: number): number {
  return (((days + 4) % 7) + 7) % 7;
}
