/* oplist.h - the families of element-by-element operations, one list each.
 * Every other place that enumerates them (the enums in backend.h, the
 * per-element code in elementwise.h, the names in timing records, the
 * built-in functions of the language) expands these lists, so a new
 * operation is one row here plus its test.
 *
 * X(ID, name, usage, expression): usage is the built-in function's help line,
 * or NULL if the operation is reached only through an operator (+, -A, ...).
 * The expression computes one element from float x (and y). */
#ifndef CUK_OPLIST_H
#define CUK_OPLIST_H

/* out[i] = x op y, x from the left operand, y from the right. min and max
 * are functions too, but of one or two arguments (a reduction or this), so
 * the evaluator writes their rows itself. */
#define CUK_EWISE_OPS(X)                                                                  \
    X(ADD, "add", NULL, x + y)                                                            \
    X(SUB, "sub", NULL, x - y)                                                            \
    X(MUL, "mul", NULL, x * y)                                                            \
    X(DIV, "div", NULL, x / y)                                                            \
    X(MIN, "min", NULL, cuk_min_nan(x, y))                                                \
    X(MAX, "max", NULL, cuk_max_nan(x, y))                                                \
    X(POW, "pow", "pow(A, B)       elementwise A to the power B (a 1x1 side broadcasts)", powf(x, y))

/* out[i] = f(x). sqrtf, expf, logf and powf are the accurate ones on the
 * device too: cuk never builds with fast math. */
#define CUK_UNARY_OPS(X)                                                     \
    X(NEG, "neg", NULL, -x)                                                  \
    X(ABS, "abs", "abs(A)          elementwise absolute value", fabsf(x))    \
    X(SQRT, "sqrt", "sqrt(A)         elementwise square root", sqrtf(x))    \
    X(EXP, "exp", "exp(A)          elementwise e^x", expf(x))               \
    X(LOG, "log", "log(A)          elementwise natural logarithm", logf(x))

/* Whole-matrix reductions to one value. NORM is the Frobenius norm. */
#define CUK_REDUCE_OPS(X)                                                    \
    X(SUM, "sum", "sum(A)          sum of all elements")                     \
    X(MEAN, "mean", "mean(A)         mean of all elements")                  \
    X(NORM, "norm", "norm(A)         Frobenius norm (2-norm of a vector)")   \
    X(MIN, "min", NULL)                                                      \
    X(MAX, "max", NULL)

#endif
