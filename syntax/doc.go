// Package syntax reads and writes the PSL 2.3 rule language: a hand-written
// lexer and recursive-descent parser that turn .psl text into *model.Rule
// values (with a srcpos.Position on every rule, atom, term, comparison, filter and
// cardinality), and a printer that writes rules back.
//
// # Entry points
//
//   - ParseFile parses a whole .psl file; ParseRule one rule given as a string
//     (e.g. from a JSON config, with the position where the string starts);
//     ParseModel parses and adds each rule to a model.Model.
//   - Format writes one rule; Print writes a file, with each rule's comment.
//   - Errors are an ErrorList of *srcpos.Error, sorted, each "file:line:col:
//     what was expected, found what". Columns count bytes.
//
// Atoms come out unresolved (PredName as written, Pred nil); predicate names
// are matched case-insensitively by model.Model.Resolve. Every rule keeps its
// source (Rule.Text: comments removed, each run of blanks one space) and the
// comment lines just before it (Rule.Comment) for the printer. Comments after
// a rule on its last line, inside a rule, and after the last rule are not
// kept.
//
// # Grammar
//
// Tokens: identifiers [A-Za-z_$][A-Za-z0-9_$]*; unsigned numbers
// DIGIT+ ('.' DIGIT+)? ([eE] [+-]? DIGIT+)?; constants in '...' or "..."
// with the escapes \\ \' \" \t \n \r (no newline inside); comments '#' or
// '//' to the end of the line and '/* ... */'. Multi-character operators
// lex greedily: -> >> <- << <= >= == != && || @Max @Min.
//
//	file       = rule* .
//	rule       = weight logical exponent?
//	           | logical '.'
//	           | weight arith exponent? filter*
//	           | arith '.' filter* .
//	weight     = NUMBER ':' .                      (finite, >= 0)
//	exponent   = '^' ('1' | '2') .
//
//	logical    = or (('->' | '>>') or | ('<-' | '<<') or)? .
//	or         = and (('|' | '||') and)* .
//	and        = not (('&' | '&&') not)* .
//	not        = ('~' | '!') not | '(' logical ')' | atom | term cmpop term .
//	cmpop      = '==' | '!=' | '-' | '%' | '^' .  ('-' is the old not-equal)
//	term       = IDENT | STRING .                 (a variable or a constant)
//	atom       = IDENT '(' arg (',' arg)* ')' .
//	arg        = term | '+' IDENT .               (+X only in arithmetic rules)
//
//	arith      = sum ('=' | '<=' | '>=') sum .
//	sum        = product (('+' | '-') product)* .
//	product    = unary (('*' | '/') unary | atom)* .
//	unary      = ('-' | '+') unary | primary .
//	primary    = NUMBER | '|' IDENT '|' | atom | '(' sum ')'
//	           | ('@Max' | '@Min') ('[' sum ',' sum ']' | '(' sum ',' sum ')') .
//	filter     = '{' IDENT ':' or '}' .           (no implication inside)
//
// PSL's own grammar allows only one connective on each side of an
// implication; this parser accepts any nesting and keeps the formula tree as
// written (parentheses group but make no node; '&' binds tighter than '|');
// model.Clauses turns it into clauses. Implications do not chain without
// parentheses. An unquoted number as an argument is an error ("constant 1
// must be quoted: '1'").
//
// Arithmetic sides are linearised as they are parsed: each side becomes a
// list of model.Summand (coefficient times atom, or a constant). A product
// needs one factor without atoms and a divisor must have none. A coefficient
// written directly before an atom ("2 A(X)") multiplies it only when the atom
// is on the same line, so that "1: A(X) = 2" followed by a rule on the next
// line stays two rules. Numeric coefficients stay symbolic (model.CoefBinary)
// because |X| is known only when grounding.
//
// # Rule boundaries
//
// As in PSL, rules may span lines and boundaries come from the grammar: a
// weighted rule starts with "NUMBER :" and ends where its expression, exponent
// and filters end; a rule without a weight ends with '.' (and its filters).
// A weighted rule must therefore be followed by something that can start a
// rule. Whether a rule is logical or arithmetic is decided by looking ahead:
// a relation '=', '<=' or '>=' outside parentheses, before any token only a
// logical rule has ('&', '&&', '||', '!', '~', '->', '>>', '<-', '<<', '==',
// '!=', '%') and before the rule's end ('.', '^' or the next "NUMBER :"),
// predicts arithmetic. The predicted kind is parsed first and, if it fails,
// the other (two attempts at most per rule). When both fail, the predicted
// attempt's error is reported if a relation or logical-only token decided
// the prediction, else the error of the attempt that got further. This
// resolves '-' (a comparison in logical rules, subtraction in arithmetic
// ones) and a weighted prior followed by an arithmetic rule on the next line.
// A '|' followed by "X |" is never a disjunction, so a weighted logical rule
// may be followed by an arithmetic rule starting with |X|. One ambiguity is
// inherent in the language and left as PSL leaves it: a weighted arithmetic
// rule without an exponent or filter followed by a rule starting with '-'
// continues the first rule ("1: A(X) = 1" then "-B(X) = 0 ." reads as
// A(X) = 1 - B(X) = 0); write "^1" or start the next rule differently. Print
// adds the "^1" itself when needed.
//
// After an error ParseFile resumes at the next "NUMBER :" or at the first
// token on a new line after a '.', so one pass reports the errors of many
// rules.
package syntax
