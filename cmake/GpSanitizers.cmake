# SPDX-License-Identifier: MIT
if(GP_SANITIZE)
  add_compile_options(-fsanitize=${GP_SANITIZE} -fno-sanitize-recover=all -fno-omit-frame-pointer -g)
  add_link_options(-fsanitize=${GP_SANITIZE} -fno-sanitize-recover=all)
endif()
