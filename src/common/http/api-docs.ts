import type * as Swagger from '@nestjs/swagger';

/**
 * The @nestjs/swagger decorators, recorded at class definition and applied by the real ones only
 * when the API document is first asked for (loadApiDocs). @nestjs/swagger is some 7 MiB of resident
 * memory in every process; most never serve their docs. The decorators are the library's own, with
 * the same arguments, on the same targets, in the same order: only the moment they run moves.
 */
const DEFERRED = [
  'ApiBearerAuth',
  'ApiBody',
  'ApiExcludeEndpoint',
  'ApiExtraModels',
  'ApiHeader',
  'ApiOperation',
  'ApiParam',
  'ApiProduces',
  'ApiProperty',
  'ApiPropertyOptional',
  'ApiQuery',
  'ApiResponse',
  'ApiTags',
] as const;
type DecoratorName = (typeof DEFERRED)[number];

interface RecordedDecorator {
  readonly name: DecoratorName;
  readonly args: readonly unknown[];
  readonly target: object;
  readonly key?: string | symbol;
  readonly descriptor?: PropertyDescriptor;
}

const recorded: RecordedDecorator[] = [];
let loading: Promise<typeof Swagger> | undefined;
let swagger: typeof Swagger | undefined;

function apply(library: typeof Swagger, { name, args, target, key, descriptor }: RecordedDecorator): void {
  const decorator = (library[name] as (...options: unknown[]) => (...on: unknown[]) => unknown)(...args);
  if (key === undefined) decorator(target);
  else decorator(target, key, descriptor);
}

function deferred<N extends DecoratorName>(name: N): (typeof Swagger)[N] {
  const factory =
    (...args: unknown[]) =>
    (target: object, key?: string | symbol, descriptor?: PropertyDescriptor) => {
      // A class defined once the library is loaded is decorated at once.
      if (swagger) apply(swagger, { name, args, target, key, descriptor });
      else recorded.push({ name, args, target, key, descriptor });
      return descriptor;
    };
  return factory as unknown as (typeof Swagger)[N];
}

const decorators = Object.fromEntries(DEFERRED.map((name) => [name, deferred(name)])) as { [N in DecoratorName]: (typeof Swagger)[N] };

// Named once more: an ES module's exports are static.
export const {
  ApiBearerAuth,
  ApiBody,
  ApiExcludeEndpoint,
  ApiExtraModels,
  ApiHeader,
  ApiOperation,
  ApiParam,
  ApiProduces,
  ApiProperty,
  ApiPropertyOptional,
  ApiQuery,
  ApiResponse,
  ApiTags,
} = decorators;

/** A `$ref` to a DTO's schema, as @nestjs/swagger's getSchemaPath writes it. */
export function getSchemaPath(model: string | { name: string }): string {
  return `#/components/schemas/${typeof model === 'string' ? model : model.name}`;
}

/** Loads @nestjs/swagger and applies every recorded decorator with it, once. */
export function loadApiDocs(): Promise<typeof Swagger> {
  loading ??= import('@nestjs/swagger').then((library) => {
    for (const decorator of recorded.splice(0)) apply(library, decorator);
    swagger = library;
    return library;
  });
  return loading;
}
