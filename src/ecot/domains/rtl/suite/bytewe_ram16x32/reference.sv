module bytewe_ram16x32 (
    input  wire        clk,
    input  wire        en,
    input  wire        we,
    input  wire [3:0]  be,
    input  wire [3:0]  addr,
    input  wire [31:0] din,
    output reg  [31:0] dout
);
    reg [31:0] mem [0:15];

    always @(posedge clk) begin
        if (en) begin
            dout <= mem[addr];
            if (we && be[0]) mem[addr][7:0]   <= din[7:0];
            if (we && be[1]) mem[addr][15:8]  <= din[15:8];
            if (we && be[2]) mem[addr][23:16] <= din[23:16];
            if (we && be[3]) mem[addr][31:24] <= din[31:24];
        end
    end
endmodule
