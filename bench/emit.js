// One benchmark figure as a JSON line: name, value, unit and, where the same work was done by a bare loop in the
// same run, `bare` and `ratio` = value / bare.
export function emit(name, value, unit, bare, note) {
  const line = { name, value: +value.toPrecision(4), unit };
  if (bare !== undefined) Object.assign(line, { bare: +bare.toPrecision(4), ratio: +(value / bare).toPrecision(3) });
  if (note) line.note = note;
  console.log(JSON.stringify(line));
}
