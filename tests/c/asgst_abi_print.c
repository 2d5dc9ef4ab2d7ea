/* Prints the ASGST layout table, one row a line: TYPE FIELD|- OFFSET SIZE
 * (tests/asgst_abi.t compares it with the structs asgst.h declares). */
#include <stdio.h>
#include "asgst.h"

int main(void)
{
    for (int i = 0; i < asgst_layout_rows; i++)
        printf("%s %s %zu %zu\n", asgst_layout[i].type, asgst_layout[i].field ? asgst_layout[i].field : "-",
               asgst_layout[i].offset, asgst_layout[i].size);
    return 0;
}
