/* The threads of hostoffload's C library (the one the Python extension
 * embeds), driven through its C API as hostoffload.check drives them, for
 * tools/sanitize.sh: only there is the library called from two threads at
 * once.
 *
 * For each module file named on the command line (generic form):
 *  1. its text as MLIR's printer lays it out, with every op's location, so
 *     that a function body can be split (cpp/lib/ParallelParse.cpp);
 *  2. that text parsed in two parts on two threads, which must happen and give
 *     the module a parse of the whole gives; then analysed;
 *  3. two threads that parse in parts and analyse at once (one of them may
 *     find the part parser busy and parse whole).
 * Contexts are made as hostoffload.mlir makes them (the dialects of
 * hostoffload/Dialects.h registered and loaded, unregistered dialects
 * allowed, multithreading off). Exits 1 with a line on stderr when a step
 * does not do what it must. */

#include "hostoffload/CAPI.h"

#include "mlir-c/IR.h"

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { kConcurrentParsers = 2 };
static const intptr_t kSplitEveryBody = 0;
static const intptr_t kSplitNoBody = INTPTR_MAX;

static const char *currentFile;

static void fail(const char *what) {
  fprintf(stderr, "hostoffload-capi-threads: %s: %s\n", currentFile, what);
  exit(1);
}

/// A growing byte string, the sink of the C API's callbacks (the printer's
/// come a few bytes at a time).
typedef struct {
  char *data;
  size_t size;
  size_t capacity;
} Text;

static void append(MlirStringRef piece, void *userData) {
  Text *text = userData;
  if (text->size + piece.length + 1 > text->capacity) {
    size_t capacity = 2 * text->capacity + piece.length + 1;
    char *grown = realloc(text->data, capacity);
    if (!grown)
      fail("out of memory");
    text->data = grown;
    text->capacity = capacity;
  }
  memcpy(text->data + text->size, piece.data, piece.length);
  text->size += piece.length;
  text->data[text->size] = '\0';
}

static Text readFile(const char *path) {
  Text text = {NULL, 0, 0};
  FILE *file = fopen(path, "rb");
  if (!file)
    fail("cannot open the file");
  char buffer[1 << 16];
  size_t count;
  while ((count = fread(buffer, 1, sizeof(buffer), file)) > 0)
    append(mlirStringRefCreate(buffer, count), &text);
  fclose(file);
  if (!text.data)
    fail("the file is empty");
  return text;
}

static MlirContext newContext(void) {
  MlirDialectRegistry registry = mlirDialectRegistryCreate();
  hostoffloadRegisterDialects(registry);
  MlirContext context = mlirContextCreateWithRegistry(registry, false);
  mlirDialectRegistryDestroy(registry);
  mlirContextSetAllowUnregisteredDialects(context, true);
  mlirContextLoadAllAvailableDialects(context);
  return context;
}

static MlirModule parse(MlirContext context, const Text *text,
                        intptr_t minParallelBodyBytes, bool *inParts) {
  Text errors = {NULL, 0, 0};
  MlirModule module = hostoffloadParseModule(
      context, mlirStringRefCreate(text->data, text->size),
      mlirStringRefCreateFromCString("input.mlir"), /*verify=*/false,
      minParallelBodyBytes, /*lexerPositions=*/false, inParts, append, &errors);
  if (mlirModuleIsNull(module)) {
    fprintf(stderr, "%s\n", errors.data ? errors.data : "");
    fail("the parse failed");
  }
  free(errors.data);
  return module;
}

/// The module as JAX prints it for hostoffload: generic, with locations.
static Text printed(MlirModule module) {
  Text text = {NULL, 0, 0};
  MlirOpPrintingFlags flags = mlirOpPrintingFlagsCreate();
  mlirOpPrintingFlagsPrintGenericOpForm(flags);
  mlirOpPrintingFlagsEnableDebugInfo(flags, /*enable=*/true,
                                     /*prettyForm=*/false);
  mlirOperationPrintWithFlags(mlirModuleGetOperation(module), flags, append,
                              &text);
  mlirOpPrintingFlagsDestroy(flags);
  return text;
}

static void analyse(MlirModule module) {
  Text report = {NULL, 0, 0};
  MlirLogicalResult result = hostoffloadAnalyzeToJson(
      mlirModuleGetOperation(module), mlirStringRefCreate(NULL, 0),
      /*strict=*/false, /*verified=*/false, /*allowH2hCopy=*/false,
      mlirStringRefCreate(NULL, 0), mlirStringRefCreate(NULL, 0),
      /*trace=*/true, append, &report);
  if (mlirLogicalResultIsFailure(result) || !report.data) {
    fprintf(stderr, "%s\n", report.data ? report.data : "");
    fail("the analysis failed");
  }
  free(report.data);
}

typedef struct {
  const Text *text;
  MlirContext context;
  MlirModule module;
} Parser;

static void *parseAndAnalyse(void *argument) {
  Parser *parser = argument;
  parser->context = newContext();
  bool inParts = false;
  parser->module =
      parse(parser->context, parser->text, kSplitEveryBody, &inParts);
  analyse(parser->module);
  return NULL;
}

static int textsEqual(const Text *a, const Text *b) {
  return a->size == b->size && memcmp(a->data, b->data, a->size) == 0;
}

static void run(const char *path) {
  currentFile = path;
  Text source = readFile(path);
  MlirContext reader = newContext();
  MlirModule read = parse(reader, &source, kSplitNoBody, NULL);
  Text text = printed(read);

  MlirContext wholeContext = newContext();
  bool inParts = true;
  MlirModule whole = parse(wholeContext, &text, kSplitNoBody, &inParts);
  if (inParts)
    fail("parsed in parts though no body was to be split");
  Text expected = printed(whole);

  MlirContext partsContext = newContext();
  MlirModule parts = parse(partsContext, &text, kSplitEveryBody, &inParts);
  if (!inParts)
    fail("not parsed in parts: the two-thread parse was not exercised");
  Text got = printed(parts);
  if (!textsEqual(&got, &expected))
    fail("the module parsed in parts differs from the one parsed whole");
  analyse(parts);

  Parser parsers[kConcurrentParsers];
  pthread_t threads[kConcurrentParsers];
  for (int i = 0; i < kConcurrentParsers; ++i) {
    parsers[i].text = &text;
    if (pthread_create(&threads[i], NULL, parseAndAnalyse, &parsers[i]) != 0)
      fail("cannot start a thread");
  }
  for (int i = 0; i < kConcurrentParsers; ++i)
    pthread_join(threads[i], NULL);

  for (int i = 0; i < kConcurrentParsers; ++i) {
    mlirModuleDestroy(parsers[i].module);
    mlirContextDestroy(parsers[i].context);
  }
  mlirModuleDestroy(parts);
  mlirContextDestroy(partsContext);
  mlirModuleDestroy(whole);
  mlirContextDestroy(wholeContext);
  mlirModuleDestroy(read);
  mlirContextDestroy(reader);
  free(got.data);
  free(expected.data);
  free(text.data);
  free(source.data);
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: hostoffload-capi-threads MODULE.mlir...\n");
    return 2;
  }
  for (int i = 1; i < argc; ++i)
    run(argv[i]);
  return 0;
}
