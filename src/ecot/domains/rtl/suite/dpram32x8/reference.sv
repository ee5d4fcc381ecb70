module dpram32x8 (
    input  wire       clk,
    input  wire       we,
    input  wire [4:0] waddr,
    input  wire [7:0] wdata,
    input  wire [4:0] raddr,
    output reg  [7:0] rdata
);
    reg [7:0] mem [0:31];

    always @(posedge clk) begin
        if (we)
            mem[waddr] <= wdata;
        rdata <= mem[raddr];
    end
endmodule
