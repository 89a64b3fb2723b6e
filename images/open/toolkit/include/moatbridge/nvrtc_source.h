/* moatbridge nvrtc: the program's source as hiprtc gets it. NVRTC keeps every namespace-scope
   __device__, __constant__ and __managed__ variable under its own name, `static` ones too, and
   cuModuleGetGlobal finds them (cuda-samples' binomialOptions_nvrtc fills a
   `static __constant__` array that way). clang, compiling the program whole, gives such a
   variable internal linkage: no symbol the runtime can find and, as nothing in the program
   writes it, every read of it folded to its initial value. The copy handed to hiprtc has
   `static` blanked (as many spaces, so that lines and columns stay) in exactly those
   declarations; functions, class members, locals, and anything in comments, literals and
   preprocessor lines are left as they are. Plain C: nvrtc.h is included from C too. */
#pragma once
#include <stdlib.h>
#include <string.h>

enum moatbridge_nvrtc_token_kind {
    MOATBRIDGE_NVRTC_END,
    MOATBRIDGE_NVRTC_IDENTIFIER,
    MOATBRIDGE_NVRTC_LITERAL, /* string, character or number */
    MOATBRIDGE_NVRTC_PUNCTUATOR
};

struct moatbridge_nvrtc_token {
    enum moatbridge_nvrtc_token_kind kind;
    size_t start, end;
};

static inline int moatbridge_nvrtc_is_word(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '$';
}

static inline int moatbridge_nvrtc_is_token(const char* text, const struct moatbridge_nvrtc_token* token,
                                            const char* word) {
    size_t length = strlen(word);
    return token->end - token->start == length && memcmp(text + token->start, word, length) == 0;
}

/* Past a quoted literal whose opening quote is at `at`; escapes honoured, a newline ends an
   unterminated one. */
static inline size_t moatbridge_nvrtc_skip_quoted(const char* text, size_t length, size_t at) {
    char quote = text[at++];
    while (at < length && text[at] != quote && text[at] != '\n') at += text[at] == '\\' && at + 1 < length ? 2 : 1;
    return at < length && text[at] == quote ? at + 1 : at;
}

/* Past a raw string literal whose opening quote is at `at`: R"delimiter( ... )delimiter". */
static inline size_t moatbridge_nvrtc_skip_raw(const char* text, size_t length, size_t at) {
    size_t open = at + 1, close;
    while (open < length && open - at <= 17 && text[open] != '(' && text[open] != '"' && text[open] != '\n') open++;
    if (open >= length || text[open] != '(') return moatbridge_nvrtc_skip_quoted(text, length, at);
    for (close = open + 1; close < length; close++) {
        size_t delimiter = open - at - 1;
        if (text[close] == ')' && close + delimiter + 1 < length &&
            memcmp(text + close + 1, text + at + 1, delimiter) == 0 && text[close + delimiter + 1] == '"')
            return close + delimiter + 2;
    }
    return length;
}

/* Past the preprocessor directive whose '#' is at `at`: its logical line, comments included. */
static inline size_t moatbridge_nvrtc_skip_directive(const char* text, size_t length, size_t at) {
    while (at < length && text[at] != '\n') {
        if (text[at] == '\\' && at + 1 < length && text[at + 1] == '\n') at += 2;
        else if (text[at] == '\\' && at + 2 < length && text[at + 1] == '\r' && text[at + 2] == '\n') at += 3;
        else if (text[at] == '/' && at + 1 < length && text[at + 1] == '*') {
            const char* end = strstr(text + at + 2, "*/");
            at = end != NULL ? (size_t)(end - text) + 2 : length;
        } else if (text[at] == '/' && at + 1 < length && text[at + 1] == '/') {
            while (at < length && text[at] != '\n') at++;
        } else if (text[at] == '"' || text[at] == '\'') {
            at = moatbridge_nvrtc_skip_quoted(text, length, at);
        } else {
            at++;
        }
    }
    return at;
}

/* The next token from `*at`, past blanks, comments and preprocessor directives. */
static inline struct moatbridge_nvrtc_token moatbridge_nvrtc_next(const char* text, size_t length, size_t* at) {
    struct moatbridge_nvrtc_token token = {MOATBRIDGE_NVRTC_END, length, length};
    size_t i = *at;
    for (;;) {
        while (i < length && (text[i] == ' ' || text[i] == '\t' || text[i] == '\n' || text[i] == '\r' ||
                              text[i] == '\f' || text[i] == '\v' || text[i] == '\\'))
            i++;
        if (i + 1 < length && text[i] == '/' && text[i + 1] == '/') {
            while (i < length && text[i] != '\n') i++;
        } else if (i + 1 < length && text[i] == '/' && text[i + 1] == '*') {
            const char* end = strstr(text + i + 2, "*/");
            i = end != NULL ? (size_t)(end - text) + 2 : length;
        } else if (i < length && text[i] == '#') {
            i = moatbridge_nvrtc_skip_directive(text, length, i);
        } else {
            break;
        }
    }
    if (i >= length) {
        *at = length;
        return token;
    }
    token.start = i;
    if (moatbridge_nvrtc_is_word(text[i]) && !(text[i] >= '0' && text[i] <= '9')) {
        while (i < length && moatbridge_nvrtc_is_word(text[i])) i++;
        token.kind = MOATBRIDGE_NVRTC_IDENTIFIER;
        if (i < length && (text[i] == '"' || text[i] == '\'')) { /* an encoding prefix: u8"", L'', R"()" */
            int raw = text[i - 1] == 'R' && text[i] == '"' && i - token.start <= 3;
            i = raw ? moatbridge_nvrtc_skip_raw(text, length, i) : moatbridge_nvrtc_skip_quoted(text, length, i);
            token.kind = MOATBRIDGE_NVRTC_LITERAL;
        }
    } else if ((text[i] >= '0' && text[i] <= '9') || (text[i] == '.' && i + 1 < length && text[i + 1] >= '0' &&
                                                       text[i + 1] <= '9')) {
        /* a preprocessing number: digit separators, exponents with their sign, suffixes */
        for (i++; i < length; i++) {
            char c = text[i], before = text[i - 1];
            if (moatbridge_nvrtc_is_word(c) || c == '.' || c == '\'') continue;
            if ((c == '+' || c == '-') &&
                (before == 'e' || before == 'E' || before == 'p' || before == 'P'))
                continue;
            break;
        }
        token.kind = MOATBRIDGE_NVRTC_LITERAL;
    } else if (text[i] == '"' || text[i] == '\'') {
        i = moatbridge_nvrtc_skip_quoted(text, length, i);
        token.kind = MOATBRIDGE_NVRTC_LITERAL;
    } else {
        i++;
        token.kind = MOATBRIDGE_NVRTC_PUNCTUATOR;
    }
    token.end = i;
    *at = i;
    return token;
}

/* Past the parenthesised (or bracketed) group whose opening token ends at `*at`. */
static inline void moatbridge_nvrtc_skip_group(const char* text, size_t length, size_t* at, char open, char close) {
    int depth = 1;
    while (depth > 0) {
        struct moatbridge_nvrtc_token token = moatbridge_nvrtc_next(text, length, at);
        if (token.kind == MOATBRIDGE_NVRTC_END) return;
        if (token.kind != MOATBRIDGE_NVRTC_PUNCTUATOR) continue;
        if (text[token.start] == open) depth++;
        else if (text[token.start] == close) depth--;
    }
}

/* Words before a parenthesis that do not make a declaration a function's: attributes and
   alignment (CUDA's __align__(n) among them), decltype. */
static inline int moatbridge_nvrtc_is_specifier_call(const char* text, const struct moatbridge_nvrtc_token* token) {
    static const char* const words[] = {"__attribute__", "__attribute", "__align__", "alignas", "_Alignas",
                                        "__declspec", "decltype", "__decltype", "__location__", "__launch_bounds__"};
    size_t i;
    for (i = 0; i < sizeof words / sizeof words[0]; i++)
        if (moatbridge_nvrtc_is_token(text, token, words[i])) return 1;
    return 0;
}

static inline int moatbridge_nvrtc_is_device_space(const char* text, const struct moatbridge_nvrtc_token* token) {
    return moatbridge_nvrtc_is_token(text, token, "__device__") ||
           moatbridge_nvrtc_is_token(text, token, "__constant__") ||
           moatbridge_nvrtc_is_token(text, token, "__managed__");
}

/* A copy of `source` with `static` blanked in namespace-scope device variable declarations,
   or NULL when there is none (or no memory: then the source goes to hiprtc as it is). */
static inline char* moatbridge_nvrtc_external_device_variables(const char* source) {
    enum { SCOPES = 256 };
    char namespace_like[SCOPES]; /* per open brace: 1 for a namespace or extern "C" block */
    int depth = 0, device = 0, decided = 0, has_static = 0, opens_namespace = 0, first = 1;
    size_t length, at = 0, static_at = 0;
    struct moatbridge_nvrtc_token previous = {MOATBRIDGE_NVRTC_END, 0, 0}, before = previous;
    char* copy = NULL;
    if (source == NULL) return NULL;
    length = strlen(source);
    for (;;) {
        struct moatbridge_nvrtc_token token = moatbridge_nvrtc_next(source, length, &at);
        int at_namespace_scope = depth == 0 || (depth <= SCOPES && namespace_like[depth - 1]);
        char c = token.kind == MOATBRIDGE_NVRTC_PUNCTUATOR ? source[token.start] : '\0';
        if (token.kind == MOATBRIDGE_NVRTC_END) break;
        if (c == '{' || c == '}' || (c == ';' && at_namespace_scope)) {
            /* `static __device__ int x;`, `... x{1}`: a variable (a class definition too, whose
               variable, if it declares one, is one) */
            if (at_namespace_scope && !decided && c != '}') decided = 2;
            if (decided == 2 && has_static && device) {
                if (copy == NULL) {
                    copy = (char*)malloc(length + 1);
                    if (copy == NULL) return NULL;
                    memcpy(copy, source, length + 1);
                }
                memset(copy + static_at, ' ', 6);
            }
            if (c == '{') {
                int is_namespace = at_namespace_scope &&
                                   (opens_namespace || (before.kind == MOATBRIDGE_NVRTC_IDENTIFIER &&
                                                        moatbridge_nvrtc_is_token(source, &before, "extern") &&
                                                        previous.kind == MOATBRIDGE_NVRTC_LITERAL));
                if (depth < SCOPES) namespace_like[depth] = (char)is_namespace;
                depth++;
            } else if (c == '}' && depth > 0) {
                depth--;
            }
            device = decided = has_static = opens_namespace = 0;
            first = 1;
            before = previous = token;
            continue;
        }
        if (at_namespace_scope && !decided) {
            if (token.kind == MOATBRIDGE_NVRTC_IDENTIFIER) {
                if (first && moatbridge_nvrtc_is_token(source, &token, "namespace")) opens_namespace = 1;
                else if (moatbridge_nvrtc_is_token(source, &token, "static")) {
                    has_static = 1;
                    static_at = token.start;
                } else if (moatbridge_nvrtc_is_device_space(source, &token)) {
                    device = 1;
                }
                if (!moatbridge_nvrtc_is_token(source, &token, "inline")) first = 0;
            } else if (c == '(' && previous.kind == MOATBRIDGE_NVRTC_IDENTIFIER &&
                       moatbridge_nvrtc_is_specifier_call(source, &previous)) {
                moatbridge_nvrtc_skip_group(source, length, &at, '(', ')');
            } else if (c == '[' && at < length && source[at] == '[') { /* [[attribute]] */
                moatbridge_nvrtc_skip_group(source, length, &at, '[', ']');
            } else if (c == '(') {
                decided = 1; /* a function (or a direct-initialised variable, left as it is) */
            } else if (c == '[' || c == '=') {
                decided = 2; /* a variable; not at a comma, which template arguments have */
            } else {
                first = 0;
            }
        }
        before = previous;
        previous = token;
    }
    return copy;
}
