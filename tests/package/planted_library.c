// Stands for a library an attacker leaves in a directory where Kiln is run, under the name of one of Kiln's
// dependencies (libgomp.so.1, ...). If the loader ever picks it up, its constructor leaves a file saying so in the
// current directory, which planted_library_test.cmake looks for.
#include <stdio.h>

__attribute__((constructor)) static void plantedLibraryLoaded(void)
{
    FILE* marker = fopen("planted_library_ran", "w");
    if (marker != NULL)
    {
        fputs("a library planted in the working directory was loaded\n", marker);
        fclose(marker);
    }
    fputs("planted library loaded from the working directory\n", stderr);
}
