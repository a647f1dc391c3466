// Types of scripts/openapi-generate.mjs for the specs that import it.
export declare const ROOT: string;
export declare const DOCUMENT_FILE: string;
export declare const TYPES_FILE: string;
export declare const REGENERATE: string;
export declare function formatDocument(document: unknown): Promise<string>;
export declare function generateClientTypes(document: unknown): Promise<string>;
export declare function clientTypesDrift(document: unknown, committed: string): Promise<string | undefined>;
export declare function documentDrift(served: unknown, committed: string): Promise<string | undefined>;
export declare function readCommitted(): Promise<{ document: string; types: string }>;
