int cpty_placeholder(void){return 0;}
